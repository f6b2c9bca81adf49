import type { ResponseRecord } from '@llm-nrm/core';
import { LlmNrmError, parseResponseRecord, type ParseRecordOptions } from '@llm-nrm/core/record';
import type { ReadResponsesOptions, SourcedRecord } from '../readResponses.js';
import type { TidyRow } from '../readTidyRows.js';

/**
 * One raw row checked (parseResponseRecord): the record, or the bare error (no file or line yet)
 * that the caller locates, throws or lists. The one row check of the serial and the threaded read,
 * so both give the same records and the same error texts.
 */
export function checkRow(row: TidyRow, parse: ParseRecordOptions): ResponseRecord | LlmNrmError {
  try {
    if (row.error) throw row.error;
    return parseResponseRecord(row.value, parse);
  } catch (e) {
    if (!(e instanceof LlmNrmError)) throw e;
    return e;
  }
}

/**
 * The records of a file's row batches with their file and line (`lineOffset` plus the row's line:
 * a chunk of the file numbers its rows from 1). A bad row throws `LlmNrmError` naming file, line
 * and value after the records before it, or with `skipInvalid` is listed in `options.report`.
 */
export async function* sourcedBatches(
  file: string,
  batches: AsyncIterable<TidyRow[]>,
  options: ReadResponsesOptions,
  parse: ParseRecordOptions,
  lineOffset = 0,
): AsyncGenerator<SourcedRecord[]> {
  for await (const rows of batches) {
    const out: SourcedRecord[] = [];
    for (const row of rows) {
      const record = checkRow(row, parse);
      const line = row.line + lineOffset;
      if (record instanceof LlmNrmError) {
        if (!options.skipInvalid) {
          // The records before the bad one still come out first, as from a record-at-a-time reader.
          if (out.length > 0) yield out;
          throw new LlmNrmError(record.code, record.message, { cause: record, file, line });
        }
        options.report?.skipped.push({ file, line, reason: record.message });
        continue;
      }
      if (options.model !== undefined) record.model = options.model;
      if (options.report) options.report.records++;
      out.push({ record, source: { file, line } });
    }
    if (out.length > 0) yield out;
  }
}
