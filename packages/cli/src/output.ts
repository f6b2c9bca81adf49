/**
 * Shared CLI output helpers: progress on stderr, aligned tables and JSON on stdout. Everything they
 * print passes core's `printable`: model ids, item texts and file names come from outside, and a
 * control character in one (a bidi override, a terminal escape) must not change what is shown.
 */
import { printable } from '@llm-nrm/core';

/** A progress reporter that writes at most about once a second to stderr (and nothing when quiet). */
export function progress(quiet = false): (msg: string) => void {
  let last = 0;
  return (msg: string) => {
    if (quiet) return;
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    process.stderr.write(`${printable(msg, { keepNewlines: true })}\n`);
  };
}

/** Always-printed status line on stderr (unless quiet). */
export function info(quiet: boolean, msg: string): void {
  if (!quiet) process.stderr.write(`${printable(msg, { keepNewlines: true })}\n`);
}

/** Format rows as an aligned plain-text table (numbers right-aligned). */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  // A cell is one line: its newlines are escaped too.
  const cells = [header, ...rows.map((r) => r.map((v) => (typeof v === 'number' ? fmt(v) : printable(v))))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => String(r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number'));
  const line = (r: (string | number)[]) =>
    r
      .map((v, c) => (numeric[c] ? String(v).padStart(widths[c]!) : String(v).padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
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
  process.stdout.write(`${jsonText(value)}\n`);
}

/**
 * JSON text whose strings carry no raw bidi or C1 control (JSON.stringify escapes only C0): they
 * are written as `\uXXXX` escapes, which parse back to the same value, so the data is unchanged and
 * a terminal shows the escapes.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Outside strings JSON text holds none of these, so each one found is inside a string.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A skipped unit as the readers report it. */
export interface SkippedUnit {
  file: string;
  line?: number;
  reason: string;
}

/**
 * What was left out, for stderr: counts per file, then the first reasons with file and line.
 * Nothing a reader skipped goes unsaid.
 */
export function formatSkipped(skipped: readonly SkippedUnit[], shown = 5): string[] {
  if (skipped.length === 0) return [];
  const perFile = new Map<string, number>();
  for (const s of skipped) perFile.set(s.file, (perFile.get(s.file) ?? 0) + 1);
  const lines = [`skipped ${skipped.length} unit${skipped.length === 1 ? '' : 's'} in ${perFile.size} file${perFile.size === 1 ? '' : 's'}:`];
  const files = [...perFile].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [file, n] of files.slice(0, 10)) lines.push(`  ${n} in ${file}`);
  if (files.length > 10) lines.push(`  ... and ${files.length - 10} more files`);
  lines.push('first reasons:');
  for (const s of skipped.slice(0, shown)) lines.push(`  ${s.file}${s.line !== undefined ? `:${s.line}` : ''}: ${s.reason}`);
  return lines;
}

/** Several status lines on stderr (unless quiet). */
/** The first `shown` names joined by `sep`, then how many more ("a, b, and 3 more"): a long list said in one line. */
export function fewNames(list: readonly string[], sep = ', ', shown = 10): string {
  return list.slice(0, shown).join(sep) + (list.length > shown ? `${sep}and ${list.length - shown} more` : '');
}

export function infoLines(quiet: boolean, lines: readonly string[]): void {
  for (const l of lines) info(quiet, l);
}

/** Write text to stdout with control characters in it escaped (newlines and tabs kept): see printable. */
export function printText(text: string): void {
  process.stdout.write(printable(text, { keepNewlines: true }));
}
