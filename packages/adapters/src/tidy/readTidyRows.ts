import { open } from 'node:fs/promises';
import { LlmNrmError } from '@llm-nrm/core';
import { readJsonlRange } from './internal/jsonlLines.js';
import { checkTidyColumns, readParquetRange } from './internal/parquetRows.js';
import { TIDY_COLUMNS, plainCell } from './tidyColumns.js';
import type { TidyFileFormat } from './tidyFileFormat.js';

/** One raw row of a tidy file: the parsed value, or why it could not be parsed, and its 1-based line (row). */
export interface TidyRow {
  line: number;
  value?: unknown;
  error?: LlmNrmError;
}

/** Raw rows of a tidy file in the given container, unvalidated. */
export async function* readTidyRows(path: string, format: TidyFileFormat): AsyncGenerator<TidyRow> {
  for await (const rows of readTidyRowBatches(path, format)) yield* rows;
}

/** Rows per batch of the Arrow reader (JSON Lines batches by chunk of the file, Parquet by row group). */
const BATCH = 4096;

/**
 * readTidyRows a batch at a time (in order): one await per batch instead of one per row, which
 * through the readers' chain of generators cost about 1 s of CPU at 378,000 rows.
 */
export function readTidyRowBatches(path: string, format: TidyFileFormat): AsyncGenerator<TidyRow[]> {
  if (format === 'arrow') return batched(readArrowRows(path));
  if (format === 'parquet') return readParquetRange(path);
  return readJsonlRows(path);
}

async function* batched(rows: AsyncGenerator<TidyRow>): AsyncGenerator<TidyRow[]> {
  let batch: TidyRow[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** JSON Lines, gunzipped when the file starts with the gzip magic; blank lines are skipped. */
function readJsonlRows(path: string): AsyncGenerator<TidyRow[]> {
  return readJsonlRange(path);
}

/** Arrow IPC (file or stream format), one record batch at a time. */
async function* readArrowRows(path: string): AsyncGenerator<TidyRow> {
  // Loaded here, not at the top: Arrow and Parquet's libraries took about 0.25 s of every start
  // of the CLI (`llm-nrm fit` of a JSON Lines file never uses them).
  const { RecordBatchReader } = await import('apache-arrow');
  const fh = await open(path, 'r');
  try {
    let reader;
    try {
      reader = await RecordBatchReader.from(fh);
    } catch (e) {
      throw new LlmNrmError('FORMAT', `not an Arrow IPC file: ${(e as Error).message}`, { cause: e, file: path });
    }
    let line = 0;
    let checked = false;
    for await (const batch of reader) {
      if (!checked) {
        checkTidyColumns(
          batch.schema.fields.map((f) => f.name),
          path,
        );
        checked = true;
      }
      const cols = TIDY_COLUMNS.map((c) => [c.name, batch.getChild(c.name)] as const);
      for (let i = 0; i < batch.numRows; i++) {
        line++;
        const row: Record<string, unknown> = {};
        for (const [name, col] of cols) row[name] = col ? plainCell(col.get(i)) : null;
        yield { line, value: row };
      }
    }
  } finally {
    await fh.close();
  }
}
