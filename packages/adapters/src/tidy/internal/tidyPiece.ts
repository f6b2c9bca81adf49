// A piece of a tidy file that one thread of the threaded read parses (threadedRead.ts): a byte range
// of a plain JSON Lines file or a range of a Parquet file's row groups. Imports nothing heavy, so a
// worker thread starts in tens of milliseconds (hyparquet loads when a Parquet piece is read).
import type { TidyRow } from '../readTidyRows.js';
import { readJsonlRange, type JsonlRange } from './jsonlLines.js';
import { readParquetRange, type ParquetRange } from './parquetRows.js';

/** What one thread reads: rows numbered from 1 within the piece. */
export type TidyPiece = { format: 'jsonl'; range: JsonlRange } | { format: 'parquet'; range: ParquetRange };

/** The piece's rows; `counter.lines` ends as the rows (lines) it holds: the next piece's offset. */
export function readPiece(file: string, piece: TidyPiece, counter: { lines: number }): AsyncGenerator<TidyRow[]> {
  return piece.format === 'jsonl' ? readJsonlRange(file, piece.range, counter) : readParquetRange(file, piece.range, counter);
}
