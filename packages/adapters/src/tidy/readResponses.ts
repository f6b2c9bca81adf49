import { stat } from 'node:fs/promises';
import { LlmNrmError, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import type { ReadOptions } from '../reader.js';
import { walkFiles } from '../walk.js';
import { readJsonlThreaded, readParquetThreaded } from './internal/threadedRead.js';
import { sourcedBatches } from './internal/sourcedBatches.js';
import { readTidyRowBatches } from './readTidyRows.js';
import { tidyFileFormat, tidyFormatFromExtension, type TidyFileFormat } from './tidyFileFormat.js';

export interface ReadResponsesOptions extends ReadOptions {
  /**
   * Skip invalid records (malformed JSON, wrong types, bad values) and list each in
   * `report.skipped` with its file and line, instead of throwing. Default false.
   */
  skipInvalid?: boolean;
  /** Container of the file(s). Default: from the extension, else sniffed from the first bytes. */
  format?: TidyFileFormat;
  /**
   * Threads that parse a plain JSON Lines file, in chunks cut at line starts, or a Parquet file,
   * in chunks of row groups (this thread and worker threads): 1 reads on this thread alone.
   * Default: the machine's available parallelism, at most 4, for files of 8 MiB or more. The records, their order, the errors and the skips
   * are the serial read's.
   */
  threads?: number;
}

/** A record and where it came from (`line` is the 1-based line, or row of an Arrow/Parquet table). */
export interface SourcedRecord {
  record: ResponseRecord;
  source: RecordSource & { file: string; line: number };
}

/**
 * Stream the records of a tidy responses file (JSON Lines, `.jsonl.gz`, Arrow IPC or Parquet), or
 * of every tidy file under a folder (sorted by path), with the file and line of each. Each record
 * is validated (parseResponseRecord); a bad one throws `LlmNrmError` naming file, line and value,
 * or with `skipInvalid` is counted in `options.report`.
 */
export async function* readResponsesWithSources(path: string, options: ReadResponsesOptions = {}): AsyncGenerator<SourcedRecord> {
  for await (const batch of readResponseBatches(path, options)) yield* batch;
}

/**
 * readResponsesWithSources a batch at a time (in order; a batch is a chunk of the file): one await
 * per batch, not per record, for readers that collect every record anyway (`readAnyResponses`).
 */
export async function* readResponseBatches(path: string, options: ReadResponsesOptions = {}): AsyncGenerator<SourcedRecord[]> {
  for (const file of await tidyFiles(path)) {
    const format = options.format ?? (await tidyFileFormat(file));
    if (format === 'jsonl' || format === 'parquet') {
      // A large plain JSON Lines file, or a Parquet file of several row groups, is parsed in chunks
      // on worker threads (same records, errors and skips).
      const threaded = format === 'jsonl' ? await readJsonlThreaded(file, options) : await readParquetThreaded(file, options);
      if (threaded !== undefined) {
        yield* threaded;
        continue;
      }
    }
    // A JSON Lines row is a value just parsed and held by nothing else: the record takes its arrays.
    yield* sourcedBatches(file, readTidyRowBatches(file, format), options, { adopt: format === 'jsonl' });
  }
}

/** Stream the records of tidy responses file(s); a `Reader`, so `convert` can take tidy input too. */
export async function* readResponses(path: string, options: ReadResponsesOptions = {}): AsyncGenerator<ResponseRecord> {
  for await (const { record } of readResponsesWithSources(path, options)) yield record;
}

/** The file itself, or every file with a tidy extension under a folder, sorted. */
async function tidyFiles(path: string): Promise<string[]> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  if (!st.isDirectory()) return [path];
  const files = await walkFiles(path, { accept: (name) => tidyFormatFromExtension(name) !== undefined });
  if (files.length === 0) throw new LlmNrmError('EMPTY', 'no tidy responses file (.jsonl, .jsonl.gz, .arrow, .parquet) in folder', { file: path });
  return files;
}
