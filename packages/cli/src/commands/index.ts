import type { CommandModule } from 'yargs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argv type
type AnyCommand = CommandModule<object, any>;

/**
 * Every CLI command by name, one module per file in this folder, each loaded only when asked for:
 * `llm-nrm fit` does not load what the other commands import (analysis, the leaderboard, the
 * tfjs engine: about 0.1 s of every start). Add a command by adding its file and one line here
 * (its key is the first word of its `command`).
 */
export const commandLoaders: Record<string, () => Promise<AnyCommand>> = {
  convert: async () => (await import('./convert.js')).convertCommand,
  evaluate: async () => (await import('./evaluate.js')).evaluateCommand,
  select: async () => (await import('./select.js')).selectCommand,
  publish: async () => (await import('./publish.js')).publishCommand,
  report: async () => (await import('./report.js')).reportCommand,
  audit: async () => (await import('./audit.js')).auditCommand,
  fit: async () => (await import('./fit.js')).fitCommand,
  score: async () => (await import('./score.js')).scoreCommand,
  extend: async () => (await import('./extend.js')).extendCommand,
  simulate: async () => (await import('./simulate.js')).simulateCommand,
  demo: async () => (await import('./demo.js')).demoCommand,
  leaderboard: async () => (await import('./leaderboard.js')).leaderboardCommand,
};

/**
 * The commands a command line needs: the one it names first (argv[0]), or every command, in the
 * order above, where argv[0] names none (the tool's own --help and --version, a misspelt command
 * that recommendCommands answers).
 */
export async function commandsFor(argv: readonly string[]): Promise<AnyCommand[]> {
  const first = argv[0];
  const one = first !== undefined && Object.hasOwn(commandLoaders, first) ? commandLoaders[first] : undefined;
  if (one !== undefined) return [await one()];
  return Promise.all(Object.values(commandLoaders).map((load) => load()));
}
