import yargs from 'yargs';
import { isLlmNrmError, printable } from '@llm-nrm/core';
import { commandsFor } from './commands/index.js';
import { setInvocation, toolVersion } from './provenance.js';

/** Thrown from yargs' `.fail` so a usage error stops parsing before any command handler runs. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Run the CLI on `argv` (without node and script). Returns the exit code: 0 on success (and after
 * `--help` / `--version`), 1 on a user-facing error (printed as one clear line), 2 on a usage error.
 * Never calls `process.exit`, so it can run in-process (tests, other tools).
 */
export async function main(argvIn: string[]): Promise<number> {
  setInvocation(argvIn);
  // yargs drops a bare `-` positional; pass it as /dev/stdin, which the readers take as `-`.
  const argv = argvIn.map((a, i) => (a === '-' && !/^(-o|--output)$/.test(argvIn[i - 1] ?? '') ? '/dev/stdin' : a));
  let hint = '';
  const cli = yargs(argv)
    .scriptName('llm-nrm')
    .usage('$0 <command> [options]\n\nOption-level psychometrics for LLM multiple-choice benchmarks (LLM-NRM).')
    .strict()
    .demandCommand(1, 'Name a command; `llm-nrm demo` runs the whole path on a simulated fleet.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(toolVersion())
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .epilogue(
      'Docs: README.md in this package, https://github.com/llm-nrm/llm-nrm/tree/main/packages/cli#readme. Every command takes --json for machine output; progress goes to stderr.',
    )
    // yargs 18 runs the command handler after a `.fail` callback that returns, and with
    // exitProcess on, --help would end the host process: throw instead, and return codes.
    .exitProcess(false)
    .fail((msg, err) => {
      // Parser errors ("Not enough arguments following: x") arrive as a YError, not as msg.
      if (err && err.name !== 'YError') throw err;
      // recommendCommands reports its guess first; strict mode's "Unknown argument" follows.
      if (!err && /^Did you mean /.test(msg)) {
        hint = msg;
        return;
      }
      throw new UsageError([msg || err?.message || 'invalid usage', hint].filter(Boolean).join('. '));
    });
  for (const c of await commandsFor(argv)) cli.command(c as never);
  try {
    await cli.parseAsync();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`llm-nrm: ${printable(e.message, { keepNewlines: true })}\nRun with --help for usage.\n`);
      return 2;
    }
    if (isLlmNrmError(e)) {
      // Messages quote ids and texts from the inputs: shown with their control characters escaped.
      process.stderr.write(`llm-nrm: ${printable(e.message, { keepNewlines: true })}\n`);
      return 1;
    }
    throw e;
  }
  return 0;
}
