/**
 * Tidy responses files: the interchange of DESIGN.md's Response record.
 *
 * - JSON Lines (`.jsonl`, gzip as `.jsonl.gz`): one record per line, fields model, item, benchmark?,
 *   key, options?, exactly one of probs / logprobs / choice, nOptions?, position?, leakage?, and the
 *   item's text: prompt? (one context for every option) or contexts? (a multiple-input item's
 *   per-option contexts, lm-eval's winogrande form), continuations?, source? (an object).
 *   Unreported options in `logprobs` are written as the string `"-Infinity"`; the reader also takes
 *   `null`, `"-inf"` and the bare `-Infinity` token Python writes. `"choice": null` is an unparsable
 *   answer (missing). Any other `null` means "field absent". Unknown fields are ignored.
 * - Arrow IPC file (`.arrow`) and Parquet (`.parquet`): the columns of TIDY_COLUMNS, float64 for
 *   probabilities, lists for options/probs/logprobs/position/continuations/contexts, `source` as its
 *   JSON text, all but model/item/key nullable (files written before a column existed read as null); a row
 *   whose probs and logprobs are null is a hard answer (`choice`, null = unparsable).
 * - Errors name the file and 1-based line (the row, for Arrow and Parquet).
 */
export { formatResponseRecord } from './formatResponseRecord.js';
export { loadBank, type LoadBankOptions } from './loadBank.js';
export { readResponses, readResponsesWithSources, type ReadResponsesOptions, type SourcedRecord } from './readResponses.js';
export { TIDY_COLUMNS, type TidyColumnType } from './tidyColumns.js';
export { tidyFileFormat, tidyFormatFromExtension, type TidyFileFormat } from './tidyFileFormat.js';
export { writeResponses, type WriteResponsesOptions } from './writeResponses.js';
