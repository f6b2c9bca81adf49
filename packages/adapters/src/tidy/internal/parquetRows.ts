// The rows of a Parquet file, a row group at a time: the serial tidy read's and, for a range of row
// groups, each reader thread's (threadedRead.ts). hyparquet is loaded here, when a Parquet file is
// read, not with the module (a JSON Lines read never needs it).
import { LlmNrmError } from '@llm-nrm/core/record';
import type { TidyRow } from '../readTidyRows.js';
import { TIDY_COLUMNS, plainCell } from '../tidyColumns.js';

/** Row groups [from, to) of a Parquet file (the threaded read's chunks). */
export interface ParquetRange {
  from: number;
  to: number;
}

/** Rows handed on at a time within a row group (one await per batch, not per row). */
const BATCH = 4096;

/** The file's row group sizes, after checking that it is a tidy table (FORMAT errors name the file). */
export async function parquetRowGroups(path: string): Promise<number[]> {
  const { metadata } = await openParquet(path);
  return metadata.row_groups.map((g) => Number(g.num_rows));
}

async function openParquet(path: string) {
  const { asyncBufferFromFile, parquetMetadataAsync } = await import('hyparquet');
  const file = await asyncBufferFromFile(path);
  let metadata;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    throw new LlmNrmError('FORMAT', `not a Parquet file: ${(e as Error).message}`, { cause: e, file: path });
  }
  // Top-level column names: schema[0] is the root, its direct children follow in pre-order.
  const names: string[] = [];
  for (let i = 1, rest = metadata.schema[0]?.num_children ?? 0; rest > 0 && i < metadata.schema.length; rest--) {
    names.push(metadata.schema[i]!.name);
    i = skipSubtree(metadata.schema, i);
  }
  checkTidyColumns(names, path);
  const columns = TIDY_COLUMNS.map((c) => c.name).filter((n) => names.includes(n));
  return { file, metadata, columns };
}

/**
 * The rows of a Parquet file, or of row groups [from, to) of it: rows are numbered from 1 within
 * the range, and `counter.lines` ends as the number of rows the range holds (the next range's
 * offset), as readJsonlRange numbers a byte range's lines.
 */
export async function* readParquetRange(path: string, range?: ParquetRange, counter?: { lines: number }): AsyncGenerator<TidyRow[]> {
  const { parquetRead } = await import('hyparquet');
  const { file, metadata, columns } = await openParquet(path);
  const groups = metadata.row_groups;
  const from = range?.from ?? 0;
  const to = Math.min(range?.to ?? groups.length, groups.length);
  let start = 0;
  for (let g = 0; g < from; g++) start += Number(groups[g]!.num_rows);
  let line = 0;
  for (let g = from; g < to; g++) {
    const n = Number(groups[g]!.num_rows);
    // The row group's columns as hyparquet decodes them (onChunk), rows read across them here: no
    // row object of hyparquet's per row (parquetReadObjects transposes into one, then we copied it).
    const cells = new Map<string, unknown[]>(columns.map((c) => [c, new Array<unknown>(n)]));
    const first = start;
    await parquetRead({
      file,
      metadata,
      columns,
      rowStart: first,
      rowEnd: first + n,
      onChunk: ({ columnName, columnData, rowStart }) => {
        const dst = cells.get(columnName);
        if (dst === undefined) return;
        const from = Math.max(0, first - rowStart);
        const to = Math.min(columnData.length, first + n - rowStart);
        for (let i = from; i < to; i++) dst[rowStart - first + i] = columnData[i];
      },
    });
    // The file's columns only: a null cell is an absent field (parseResponseRecord), so a column the
    // file lacks is left out of every row instead of set null (a property and a plainCell call per row
    // and column); but for `choice`, whose key alone makes a row without a distribution a missing
    // answer ('choice' in the row), as its null does.
    const read = columns.map((c) => cells.get(c)!);
    const noChoice = !columns.includes('choice');
    for (let b = 0; b < n; b += BATCH) {
      const out: TidyRow[] = [];
      for (let i = b; i < Math.min(n, b + BATCH); i++) {
        const value: Record<string, unknown> = noChoice ? { choice: null } : {};
        for (let t = 0; t < columns.length; t++) value[columns[t]!] = plainCell(read[t]![i]);
        out.push({ line: ++line, value });
      }
      yield out;
    }
    start += n;
  }
  if (counter) counter.lines = line;
}

/** Index just past the subtree of schema element `i` (elements are in pre-order with child counts). */
function skipSubtree(schema: { num_children?: number }[], i: number): number {
  let pending = 1;
  while (pending > 0 && i < schema.length) {
    pending += (schema[i]!.num_children ?? 0) - 1;
    i++;
  }
  return i;
}

/** FORMAT unless the columns make a tidy responses table (the Arrow and Parquet readers' check). */
export function checkTidyColumns(names: string[], path: string): void {
  const missing = TIDY_COLUMNS.filter((c) => c.required && !names.includes(c.name)).map((c) => c.name);
  if (missing.length > 0) {
    throw new LlmNrmError('FORMAT', `not a tidy responses table: missing column ${missing.join(', ')} (has ${names.join(', ') || 'none'})`, { file: path });
  }
  if (!['probs', 'logprobs', 'choice'].some((n) => names.includes(n))) {
    throw new LlmNrmError('FORMAT', `not a tidy responses table: no probs, logprobs or choice column (has ${names.join(', ')})`, { file: path });
  }
}
