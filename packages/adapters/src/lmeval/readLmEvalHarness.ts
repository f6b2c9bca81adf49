import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { describeValue, LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';
import { walkFiles } from '../walk.js';
import { jsonArrayElements } from './jsonArrayElements.js';
import { ResultsCache, isResultsFileName, lmEvalFileMeta, resultsDate, parseSamplesName, type LmEvalFileMeta } from './lmEvalFileMeta.js';
import { parseJsonLenient } from './parseJsonLenient.js';
import { newCounts, sampleRecord, type SampleContext } from './sampleRecord.js';
import { splitLines } from './splitLines.js';
import { fileChunks, textChunks, type DecodingStats } from './textChunks.js';

export interface LmEvalReadOptions extends ReadOptions {
  /** Task name to use instead of the one inferred from the file name (renamed files). Default: inferred. */
  task?: string;
}

/** Message of a Git-LFS pointer in place of the data. */
export const LFS_POINTER_REASON = 'Git LFS pointer, not the data: run git lfs pull';

/** Largest run of unparsable lines held while looking for the end of a broken record. */
const MAX_GROUP_CHARS = 64 << 20;

type Value = { value: unknown; line: number } | { error: string; line: number };

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Prepend already-read chunks to the rest of a stream. */
async function* prepend(head: string[], rest: AsyncIterator<string>): AsyncGenerator<string> {
  yield* head;
  for (;;) {
    const r = await rest.next();
    if (r.done) return;
    yield r.value;
  }
}

/**
 * JSON Lines, tolerant of the real malformed files: a line that does not parse starts a group of
 * lines that ends at the next line that parses on its own (or starts with `{`). A group that
 * parses when joined is a pretty-printed record; otherwise it is one broken record, reported with
 * its line range, and reading goes on after it.
 */
async function* jsonLinesValues(text: AsyncIterable<string>): AsyncGenerator<Value> {
  let lineNo = 0;
  let group: string[] = [];
  let groupStart = 0;
  let groupChars = 0;
  function flush(): Value {
    let end = group.length;
    while (end > 0 && group[end - 1]!.trim() === '') end--;
    const lines = group.slice(0, end);
    const start = groupStart;
    group = [];
    groupChars = 0;
    try {
      const v = parseJsonLenient(lines.join('\n'));
      if (isObj(v)) return { value: v, line: start };
    } catch (e) {
      const msg = (e as Error).message.slice(0, 120);
      return lines.length === 1
        ? { error: `invalid JSON: ${msg}`, line: start }
        : { error: `record broken across lines ${start}-${start + lines.length - 1}: ${msg}`, line: start };
    }
    return { error: `not a JSON object (lines ${start}-${start + lines.length - 1})`, line: start };
  }
  for await (const line of splitLines(text)) {
    lineNo++;
    if (group.length === 0 && line.trim() === '') continue;
    const startsRecord = line.charCodeAt(0) === 123;
    if (group.length === 0 || startsRecord) {
      let v: unknown;
      let ok: boolean;
      try {
        v = parseJsonLenient(line);
        ok = isObj(v);
      } catch {
        ok = false;
      }
      if (ok) {
        if (group.length > 0) yield flush();
        yield { value: v, line: lineNo };
        continue;
      }
      if (group.length > 0 && startsRecord) yield flush();
    }
    if (group.length === 0) groupStart = lineNo;
    group.push(line);
    groupChars += line.length;
    if (groupChars > MAX_GROUP_CHARS) yield flush();
  }
  if (group.length > 0) yield flush();
}

async function* arrayValues(text: AsyncIterable<string>): AsyncGenerator<Value> {
  for await (const piece of jsonArrayElements(text)) {
    if ('error' in piece) {
      yield piece;
      continue;
    }
    try {
      yield { value: parseJsonLenient(piece.text), line: piece.line };
    } catch (e) {
      yield { error: `invalid JSON in array element (lines ${piece.line}-${piece.endLine}): ${(e as Error).message.slice(0, 120)}`, line: piece.line };
    }
  }
}

function layoutName(container: '[' | '{', file: string, first: unknown): string {
  const o = isObj(first) ? first : {};
  if ('logit_0' in o) return 'write_out JSON array (v0.3)';
  const oldArgs = Array.isArray(o.arguments);
  if (container === '[') return oldArgs ? 'JSON array (v0.4.0-0.4.2)' : 'JSON array (main, May 2024)';
  if (/\.json(\.gz)?$/i.test(file)) return 'JSON Lines in .json (mid-2024)';
  return oldArgs ? 'JSON Lines (v0.4.0-0.4.2 style)' : 'JSON Lines (v0.4.3+)';
}

/**
 * Read one lm-eval samples stream (bytes or text; gzip detected by its magic bytes) whose task and
 * model are given in `meta` (see `lmEvalFileMeta`). Sniffs the container: `[` = JSON array
 * (write_out, v0.4.0-0.4.2), `{` = JSON Lines (whatever the extension), a Git-LFS pointer = skipped.
 * Every unusable unit goes to `options.report.skipped` with file, line and reason.
 */
export async function* readLmEvalStream(
  source: AsyncIterable<string | Uint8Array>,
  meta: LmEvalFileMeta,
  options: ReadOptions = {},
): AsyncGenerator<ResponseRecord> {
  const report = options.report ?? newReport();
  const file = meta.file;
  const decoding: DecodingStats = { invalid: 0, firstLine: undefined };
  const it = textChunks(source, decoding)[Symbol.asyncIterator]();
  const head: string[] = [];
  let firstChar = '';
  let seen = '';
  while (firstChar === '') {
    const r = await it.next();
    if (r.done) break;
    head.push(r.value);
    seen += r.value.length < 64 ? r.value : r.value.slice(0, 64);
    const m = /\S/.exec(seen);
    if (m) firstChar = m[0];
    if (seen.length > 64) seen = seen.slice(-64);
  }
  const text = prepend(head, it);
  if (firstChar === '') {
    report.skipped.push({ file, reason: 'empty file: no samples' });
    return;
  }
  if (firstChar === 'v') {
    // Peek far enough to recognise the LFS pointer line.
    let start = head.join('');
    while (start.length < 48) {
      const r = await it.next();
      if (r.done) break;
      start += r.value;
    }
    if (/^\s*version https:\/\/git-lfs/.test(start)) {
      report.skipped.push({ file, line: 1, reason: LFS_POINTER_REASON });
      return;
    }
    report.skipped.push({ file, line: 1, reason: `not lm-eval samples: starts with ${describeValue(start.trim().slice(0, 30))}` });
    return;
  }
  if (firstChar !== '[' && firstChar !== '{') {
    report.skipped.push({ file, line: 1, reason: `not lm-eval samples (JSON array or JSON Lines): starts with ${describeValue(firstChar)}` });
    return;
  }
  const values = firstChar === '[' ? arrayValues(text) : jsonLinesValues(text);
  const counts = newCounts();
  const ctx: SampleContext = { task: meta.task, model: meta.model, score: options.score ?? 'raw', config: meta.config, counts };
  let picked: string | undefined = options.filter;
  const otherFilters = new Map<string, number>();
  const onlyOther = new Map<string, { line: number; filter: string }>();
  const keptItems = new Set<string>();
  let layout = '';
  let firstNanLine: number | undefined;
  let yielded = 0;
  let skipped = 0;
  for await (const v of values) {
    if ('error' in v) {
      report.skipped.push({ file, line: v.line, reason: v.error });
      skipped++;
      continue;
    }
    if (layout === '') layout = layoutName(firstChar as '[' | '{', file, v.value);
    const nanBefore = counts.nanScores;
    const r = sampleRecord(v.value, ctx);
    if (counts.nanScores > nanBefore) firstNanLine ??= v.line;
    if ('skip' in r) {
      report.skipped.push({ file, line: v.line, reason: r.skip });
      skipped++;
      continue;
    }
    // Several filters = one sample per doc per filter (formats doc §2): keep one.
    if (picked === undefined) picked = r.filter;
    if (r.filter !== picked) {
      otherFilters.set(r.filter, (otherFilters.get(r.filter) ?? 0) + 1);
      if (!onlyOther.has(r.record.item)) onlyOther.set(r.record.item, { line: v.line, filter: r.filter });
      continue;
    }
    keptItems.add(r.record.item);
    report.records++;
    yielded++;
    options.onSource?.(file, v.line);
    yield r.record;
  }
  // A document seen only under a filter that was not kept is lost to this read: list it.
  if (yielded > 0) {
    for (const [item, o] of onlyOther) {
      if (keptItems.has(item)) continue;
      report.skipped.push({
        file,
        line: o.line,
        reason: `${item}: only under filter '${o.filter}', not the kept '${picked}' (--filter picks another)`,
        kind: 'not-applicable',
      });
    }
  }
  const parts = [
    `${file}: ${layout || 'no samples'}; task '${meta.task}' (${meta.taskSource}); model '${meta.model}' (${meta.modelSource}); ${yielded} records, ${skipped} skipped`,
  ];
  if (options.score !== undefined && options.score !== 'raw') parts.push(`scores per ${options.score === 'chars' ? 'character' : 'UTF-8 byte'}`);
  if (otherFilters.size > 0) {
    const others = [...otherFilters].map(([f, n]) => `'${f}' (${n})`).join(', ');
    parts.push(`kept filter '${picked}'${options.filter === undefined ? ' (first seen)' : ''}, left out ${others}`);
    if (yielded === 0) report.skipped.push({ file, reason: `no samples with filter '${picked}' (filters present: ${[...otherFilters.keys()].join(', ')})` });
  } else if (picked !== undefined && picked !== 'none') parts.push(`filter '${picked}'`);
  // Counted with the line of the first, as skipped units are: the file can be checked.
  if (counts.nanScores > 0) parts.push(`${counts.nanScores} NaN option scores read as -Infinity (first on line ${firstNanLine})`);
  if (decoding.invalid > 0) parts.push(`${decoding.invalid} byte sequences not UTF-8 read as U+FFFD (first on line ${decoding.firstLine})`);
  if (counts.allMissing > 0) parts.push(`${counts.allMissing} samples with no finite option score emitted as missing (choice null)`);
  if (counts.invalidAnswers > 0) parts.push(`${counts.invalidAnswers} answers '[invalid]' (missing)`);
  if (counts.unmatchedAnswers > 0) parts.push(`${counts.unmatchedAnswers} answers matching no option (missing)`);
  if (counts.multiGold > 0) parts.push(`${counts.multiGold} samples with several true options (first keyed)`);
  if (counts.mutualInfo > 0) parts.push(`${counts.mutualInfo} acc_mutual_info samples (unconditional requests ignored)`);
  if (counts.zeroLength > 0) parts.push(`${counts.zeroLength} empty options kept unnormalised`);
  report.notes.push(parts.join('; '));
}

/** Candidate samples files and results files under a folder (the shared walk: sorted, recursive, hidden entries skipped). */
async function listFiles(dir: string, samples: string[], results: string[]): Promise<void> {
  for (const p of await walkFiles(dir, { accept: (name) => isResultsFileName(name) || /\.jsonl?(\.gz)?$/i.test(name) })) {
    if (isResultsFileName(basename(p))) results.push(p);
    else samples.push(p);
  }
}

/**
 * Stream tidy records from lm-evaluation-harness `--log_samples` / `--write_out` outputs: one file,
 * or a folder searched recursively for `samples_*.jsonl`, `samples_*.json`, `*_write_out_info.json`,
 * v0.4.0-0.4.2 `<model_args>_<task>.jsonl` arrays and other `.json`/`.jsonl` files (sniffed), each
 * optionally gzipped. Multiple-choice samples give per-option `logprobs` (`options.score`: 'raw'
 * summed loglikelihood, 'chars' per character = acc_norm, 'bytes' per UTF-8 byte); generate_until
 * samples give hard `choice`s (`[invalid]` = null, missing). Item ids are `<task>/<doc_id>`.
 * Whole-file problems (LFS pointers, unreadable files) and bad records go to `options.report`;
 * for a single file without a report they throw, so nothing is lost silently.
 *
 * @example
 * const report = newReport();
 * for await (const r of readLmEvalHarness('out/', { report, score: 'chars' })) console.log(r.item, r.logprobs);
 */
export async function* readLmEvalHarness(path: string, options: LmEvalReadOptions = {}): AsyncGenerator<ResponseRecord> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read: ${(e as Error).message}`, { cause: e, file: path });
  }
  const given = options.report;
  const report: ReadReport = given ?? newReport();
  const cache = new ResultsCache();
  const opts: ReadOptions = { ...options, report };
  if (!st.isDirectory()) {
    if (isResultsFileName(basename(path))) {
      report.skipped.push({ file: path, reason: 'results file: aggregate metrics only, no per-sample data (read the samples_* files beside it)' });
    } else {
      const meta = await lmEvalFileMeta(path, options, cache);
      yield* readFile(path, meta, opts);
    }
    report.notes.push(...cache.problems);
    if (given === undefined) throwSkipped(report);
    return;
  }
  const samples: string[] = [];
  const results: string[] = [];
  await listFiles(path, samples, results);
  const seen = new Map<string, string[]>();
  const metas: [string, LmEvalFileMeta][] = [];
  for (const file of samples) {
    let meta: LmEvalFileMeta;
    try {
      meta = await lmEvalFileMeta(file, options, cache);
    } catch (e) {
      report.skipped.push({ file, reason: `cannot read: ${(e as Error).message.slice(0, 160)}` });
      continue;
    }
    const key = `${meta.model}\u0000${meta.task}`;
    seen.set(key, [...(seen.get(key) ?? []), file]);
    metas.push([file, meta]);
  }
  // Several timestamped runs of one model and task: a rerun, not more data. Keep the latest
  // (by the timestamp in the name) unless every run is asked for.
  const left = new Set<string>();
  if ((options.replicates ?? 'latest') === 'latest') {
    for (const [key, files] of seen) {
      const dated = files.map((f) => ({ f, date: parseSamplesName(basename(f))?.date })).filter((x) => x.date !== undefined);
      if (dated.length < 2 || new Set(dated.map((x) => x.date)).size < 2) continue;
      const latest = dated.reduce((a, b) => (b.date! > a.date! ? b : a));
      const older = dated.filter((x) => x.date !== latest.date).map((x) => x.f);
      for (const f of older) left.add(f);
      const [model, task] = key.split('\u0000');
      report.notes.push(
        `model '${model}' task '${task}': ${dated.length} timestamped runs; kept the latest, ${latest.f} (--replicates keep reads all), left out ${older.join(', ')}`,
      );
      seen.set(
        key,
        files.filter((f) => !left.has(f)),
      );
    }
  }
  for (const [file, meta] of metas) {
    if (left.has(file)) continue;
    yield* readFile(file, meta, opts);
  }
  // A results file with no samples of its run beside it holds aggregates only: say so.
  for (const r of results) {
    const dir = dirname(r);
    const date = resultsDate(basename(r));
    const paired = samples.some((s) => dirname(s) === dir && (date === undefined || parseSamplesName(basename(s))?.date === date));
    if (!paired) report.skipped.push({ file: r, reason: 'results file without samples: aggregate metrics only (run with --log_samples)' });
  }
  for (const [key, files] of seen) {
    if (files.length > 1) {
      const [model, task] = key.split('\u0000');
      report.notes.push(`model '${model}' task '${task}' in ${files.length} files (kept as replicates): ${files.join(', ')}`);
    }
  }
  report.notes.push(...cache.problems);
  if (samples.length === 0) report.notes.push(`${path}: no samples files found`);
  if (given === undefined) throwSkipped(report);
}

/** Without a report to collect into, skipped units end the read with an error rather than silence. */
function throwSkipped(report: ReadReport): void {
  const first = report.skipped[0];
  if (first === undefined) return;
  const more = report.skipped.length > 1 ? ` (and ${report.skipped.length - 1} more; pass options.report to collect them)` : '';
  throw new LlmNrmError('FORMAT', first.reason + more, { file: first.file, ...(first.line !== undefined ? { line: first.line } : {}) });
}

/** One file, with whole-file failures (unreadable, corrupt gzip) recorded instead of thrown. */
async function* readFile(file: string, meta: LmEvalFileMeta, options: ReadOptions): AsyncGenerator<ResponseRecord> {
  try {
    yield* readLmEvalStream(fileChunks(file), meta, options);
  } catch (e) {
    // Only I/O and decompression failures are whole-file problems; anything else is a bug to surface.
    const code = (e as { code?: unknown }).code;
    if (e instanceof LlmNrmError ? e.code !== 'IO' && e.code !== 'FORMAT' : typeof code !== 'string') throw e;
    const msg = (e as Error).message.slice(0, 160);
    options.report!.skipped.push({ file, reason: /gzip|zlib|header check|unexpected end/i.test(msg) ? `corrupt gzip data: ${msg}` : `cannot read: ${msg}` });
  }
}
