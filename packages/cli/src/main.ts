import yargs from 'yargs';
import { isLlmNrmError } from '@llm-nrm/core';
import { commands } from './commands/index.js';

/**
 * Run the CLI on `argv` (without node and script). Returns the exit code: 0 on success, 1 on a
 * user-facing error (printed as one clear line), 2 on a usage error.
 */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const cli = yargs(argv)
    .scriptName('llm-nrm')
    .usage('$0 <command> [options]\n\nOption-level psychometrics for LLM multiple-choice benchmarks (LLM-NRM).')
    .strict()
    .demandCommand(1, 'Name a command; `llm-nrm demo` runs the whole path on a simulated fleet.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .epilogue('Docs: packages/README.md. Every command takes --json for machine output; progress goes to stderr.')
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`llm-nrm: ${msg}\nRun with --help for usage.\n`);
      code = 2;
    });
  for (const c of commands) cli.command(c as never);
  try {
    await cli.parseAsync();
  } catch (e) {
    if (isLlmNrmError(e)) {
      process.stderr.write(`llm-nrm: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  return code;
}
