// Command-line options and progress output shared by this package's bench scripts.
const args = process.argv.slice(2);

/** The value after `--name`, or `def` when the flag is absent. */
export const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};

/** The number after `--name`, or `def` when the flag is absent. */
export const num = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};

/** Progress and figures go to stderr, so that stdout carries only the JSON result. */
export const log = (s) => process.stderr.write(`${s}\n`);

/** The middle of the sorted values (the upper middle of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
