// The threaded read of a large plain JSON Lines file (issue 9: at 189 x 2,000, 73 MB, parsing and
// checking the records was 3 s of one core while the other idled) or a Parquet file of several row
// groups (issue 28: 45.8M rows took about 6 min on one thread, 2 min 50 s with a worker; paper
// scale 139 -> 73 s for the whole fit; packages/cli/BENCHMARKS.md). The file is cut into chunks, at line
// starts or row group bounds; this thread reads the first chunk as the serial reader does while
// worker threads parse and check the others (readerWorker.ts) and send their records back compactly
// (recordEncoding.ts). Chunks are taken in file order and lines (rows) numbered across the file, so
// the records, their sources, the errors (file, global line, value) and the skips are the serial
// read's. Small or gzipped files, one thread, or no worker script fall back to the serial read.
import { existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LlmNrmError } from '@llm-nrm/core';
import type { ReadResponsesOptions, SourcedRecord } from '../readResponses.js';
import type { JsonlRange } from './jsonlLines.js';
import { parquetRowGroups } from './parquetRows.js';
import { fileHead, isGzip } from '../tidyFileFormat.js';
import { BatchDecoder } from './recordEncoding.js';
import type { ReaderWorkerData, ReaderWorkerMessage } from './readerWorker.js';
import { sourcedBatches } from './sourcedBatches.js';
import { readPiece, type TidyPiece } from './tidyPiece.js';

/** Files below this are read on one thread by default (a worker's start, about 50 ms, would not pay). */
export const THREADED_MIN_BYTES = 8 << 20;
/** At most this many threads by default. */
const MAX_THREADS = 4;

/**
 * The worker's script: the built one beside this module, also when this module runs from its
 * TypeScript source (vitest), where Node could not load a .ts worker.
 */
const WORKER_SCRIPT = new URL(import.meta.url.endsWith('.ts') ? '../../../dist/tidy/internal/readerWorker.js' : './readerWorker.js', import.meta.url);

/**
 * The share of the file this thread parses itself, the rest going to `threads - 1` workers in equal
 * parts. This thread also rebuilds the workers' records and takes every record into the bank (the
 * checks, the tallies, the cells: about 0.6 of the cost of parsing one, its garbage collection
 * included) and a worker encodes its records (about 0.1), so the shares that finish together solve
 * f + 0.6 (1 - f) = 1.1 (1 - f) / (threads - 1): a third of the file with one worker; with more
 * this thread is the slowest already, and takes a twentieth (its chunk, the file's start, is never
 * empty). (At 189 x 31,554 the JSON Lines read took 10.6-10.8 s at a third against 11.7-12.8 s at the
 * 0.44 of a rebuild-only cost model; Parquet the same within its spread: packages/cli/BENCHMARKS.md.)
 */
export function mainShare(threads: number): number {
  const w = 1.1 / (threads - 1);
  return Math.max(0.05, (w - 0.6) / (0.4 + w));
}

/**
 * Byte ranges of `threads` chunks of a plain file (the first `mainShare` of it, then equal parts),
 * each starting at a line start (just after a `\n`), or fewer where the file has too few lines. A
 * `\r\n` is never cut, as the cut follows its `\n`; a file whose lines end in lone `\r` has no cut
 * and is one chunk.
 */
export async function jsonlChunks(file: string, size: number, threads: number): Promise<JsonlRange[]> {
  const cuts: number[] = [0];
  const first = mainShare(threads);
  const fh = await open(file, 'r');
  try {
    const window = Buffer.alloc(1 << 16);
    for (let i = 1; i < threads; i++) {
      const share = first + ((1 - first) * (i - 1)) / (threads - 1);
      let at = Math.max(Math.floor(size * share), cuts[cuts.length - 1]!);
      let cut = -1;
      while (cut < 0 && at < size) {
        const { bytesRead } = await fh.read(window, 0, window.length, at);
        if (bytesRead === 0) break;
        const n = window.subarray(0, bytesRead).indexOf(10);
        if (n >= 0) cut = at + n + 1;
        else at += bytesRead;
      }
      if (cut < 0 || cut >= size) break;
      if (cut > cuts[cuts.length - 1]!) cuts.push(cut);
    }
  } finally {
    await fh.close();
  }
  return cuts.map((start, i) => ({ start, end: i + 1 < cuts.length ? cuts[i + 1]! : size }));
}

/** A worker's messages as they arrive, taken one at a time; a crash or early exit arrives as an Error. */
class Inbox {
  private readonly queue: (ReaderWorkerMessage | Error)[] = [];
  private wake: (() => void) | undefined;
  put(m: ReaderWorkerMessage | Error): void {
    this.queue.push(m);
    this.wake?.();
    this.wake = undefined;
  }
  async take(): Promise<ReaderWorkerMessage | Error> {
    while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.queue.shift()!;
  }
}

/**
 * The threads for a file and its size, or undefined where the serial read applies (both formats'
 * rule): one thread asked for, no built worker script, not a readable file (the serial read
 * reports it), or below THREADED_MIN_BYTES unless `threads` was given.
 */
async function threadPlan(file: string, options: ReadResponsesOptions): Promise<{ threads: number; size: number } | undefined> {
  const threads = Math.floor(options.threads ?? Math.min(MAX_THREADS, availableParallelism()));
  if (!(threads > 1) || !existsSync(fileURLToPath(WORKER_SCRIPT))) return undefined;
  const st = await stat(file).catch(() => undefined);
  if (st === undefined || !st.isFile()) return undefined;
  if (options.threads === undefined && st.size < THREADED_MIN_BYTES) return undefined;
  return { threads, size: st.size };
}

/**
 * The threaded read of one JSON Lines file (readResponseBatches' batches), or undefined where the
 * serial read applies: one thread asked for, a file below THREADED_MIN_BYTES (unless `threads` was
 * given), a gzipped file, a file of one chunk, or no built worker script.
 */
export async function readJsonlThreaded(file: string, options: ReadResponsesOptions): Promise<AsyncGenerator<SourcedRecord[]> | undefined> {
  const plan = await threadPlan(file, options);
  if (plan === undefined || isGzip(await fileHead(file, 2))) return undefined;
  const ranges = await jsonlChunks(file, plan.size, plan.threads);
  if (ranges.length < 2) return undefined;
  return threadedBatches(
    file,
    ranges.map((range) => ({ format: 'jsonl', range })),
    options,
  );
}

/**
 * Row groups [from, to) of each of `threads` chunks of a Parquet file with these row group sizes:
 * the first `mainShare` of the rows, then equal parts, cut at group bounds (fewer chunks where the
 * file has too few groups; empty chunks are left out).
 */
export function parquetChunks(groupRows: readonly number[], threads: number): { from: number; to: number }[] {
  const total = groupRows.reduce((a, b) => a + b, 0);
  const first = mainShare(threads);
  const cuts: number[] = [0];
  let seen = 0;
  let g = 0;
  for (let i = 1; i < threads; i++) {
    const target = total * (first + ((1 - first) * (i - 1)) / (threads - 1));
    while (g < groupRows.length && seen + groupRows[g]! / 2 <= target) seen += groupRows[g++]!;
    if (g > cuts[cuts.length - 1]! && g < groupRows.length) cuts.push(g);
  }
  return cuts.map((from, i) => ({ from, to: i + 1 < cuts.length ? cuts[i + 1]! : groupRows.length }));
}

/**
 * The threaded read of one Parquet file (readResponseBatches' batches), or undefined where the
 * serial read applies: one thread asked for, a file below THREADED_MIN_BYTES (unless `threads` was
 * given), a file of one row group, or no built worker script.
 */
export async function readParquetThreaded(file: string, options: ReadResponsesOptions): Promise<AsyncGenerator<SourcedRecord[]> | undefined> {
  const plan = await threadPlan(file, options);
  if (plan === undefined) return undefined;
  const ranges = parquetChunks(await parquetRowGroups(file), plan.threads);
  if (ranges.length < 2) return undefined;
  return threadedBatches(
    file,
    ranges.map((range) => ({ format: 'parquet', range })),
    options,
  );
}

async function* threadedBatches(file: string, ranges: TidyPiece[], options: ReadResponsesOptions): AsyncGenerator<SourcedRecord[]> {
  const skipInvalid = options.skipInvalid ?? false;
  // Chunks after the first go to workers, started at once; one that cannot start is read here.
  const workers: (Worker | undefined)[] = [];
  const inboxes: Inbox[] = [];
  for (let i = 1; i < ranges.length; i++) {
    const inbox = new Inbox();
    inboxes[i] = inbox;
    try {
      const data: ReaderWorkerData = { file, piece: ranges[i]!, skipInvalid };
      const w = new Worker(WORKER_SCRIPT, { workerData: data });
      let ended = false;
      w.on('message', (m: ReaderWorkerMessage) => {
        if (m.t === 'end') ended = true;
        inbox.put(m);
      });
      w.on('error', (e) => inbox.put(e instanceof Error ? e : new Error(String(e))));
      w.on('exit', (code) => {
        if (!ended) inbox.put(new Error(`a reader thread exited with code ${code}`));
      });
      workers[i] = w;
    } catch {
      workers[i] = undefined;
    }
  }
  try {
    let offset = 0;
    for (let i = 0; i < ranges.length; i++) {
      const here = async function* (): AsyncGenerator<SourcedRecord[]> {
        const counter = { lines: 0 };
        yield* sourcedBatches(file, readPiece(file, ranges[i]!, counter), options, { adopt: true }, offset);
        offset += counter.lines;
      };
      if (workers[i] === undefined) {
        yield* here();
        continue;
      }
      const decoder = new BatchDecoder();
      let consumed = false;
      for (;;) {
        const m = await inboxes[i]!.take();
        if (m instanceof Error) {
          // The worker failed (not the data): its chunk is read here when none of it came out yet.
          if (consumed) throw new LlmNrmError('IO', `cannot read ${file}: ${m.message}`, { cause: m, file });
          void workers[i]!.terminate();
          workers[i] = undefined;
          yield* here();
          break;
        }
        if (m.t === 'batch') {
          const out: SourcedRecord[] = [];
          decoder.decode(m.batch, (record, line) => {
            if (options.model !== undefined) record.model = options.model;
            out.push({ record, source: { file, line: line + offset } });
          });
          if (options.report) {
            for (const s of m.batch.skipped) options.report.skipped.push({ file, line: s.line + offset, reason: s.reason });
            options.report.records += out.length;
          }
          if (out.length > 0) {
            consumed = true;
            yield out;
          }
          continue;
        }
        if (m.error !== undefined) {
          const e = m.error;
          throw new LlmNrmError(e.code, e.message, { file, ...(e.line !== undefined ? { line: e.line + offset } : {}) });
        }
        offset += m.lines;
        break;
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w?.terminate()));
  }
}
