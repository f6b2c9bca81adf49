/** Shared CLI output helpers: progress on stderr, aligned tables and JSON on stdout. */

/** A progress reporter that writes at most about once a second to stderr (and nothing when quiet). */
export function progress(quiet = false): (msg: string) => void {
  let last = 0;
  return (msg: string) => {
    if (quiet) return;
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    process.stderr.write(`${msg}\n`);
  };
}

/** Always-printed status line on stderr (unless quiet). */
export function info(quiet: boolean, msg: string): void {
  if (!quiet) process.stderr.write(`${msg}\n`);
}

/** Format rows as an aligned plain-text table (numbers right-aligned). */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((v) => (typeof v === 'number' ? fmt(v) : v)))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => String(r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number'));
  const line = (r: (string | number)[]) =>
    r.map((v, c) => (numeric[c] ? String(v).padStart(widths[c]!) : String(v).padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n') + '\n';
}

/** Numbers to 4 significant decimals, integers as is. */
export function fmt(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 1000 ? v.toFixed(1) : v.toFixed(4);
}

/** Print JSON to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
