import { stat } from 'node:fs/promises';
import {
  LlmNrmError,
  duplicateRows,
  resolveItemVersions,
  type DuplicateRows,
  type ItemVersionConflict,
  type ItemVersionPolicy,
  type RecordSource,
  type ResponseRecord,
} from '@llm-nrm/core';
import { convertSourcedBatches, type ConvertOptions, type ConvertSummary } from './convert.js';
import { isStdinPath } from './internal/stdin.js';
import { isToolOutput } from './walk.js';

export interface ReadAnyOptions extends ConvertOptions {
  /** Items that share an id but not their content: split them (default) or keep the majority version. */
  itemVersions?: ItemVersionPolicy;
}

/** Every response of some inputs, ready for `bankFromRecords`, and what was found on the way. */
export interface AnyResponses {
  records: ResponseRecord[];
  /** Where each record came from (file, and line for tidy inputs). */
  sources: (RecordSource & { file: string })[];
  /** Inputs and their formats, per (model, benchmark) counts, skipped units, readers' notes. */
  summary: ConvertSummary;
  /** Item ids that named different content, and what became of each version. */
  itemVersions: ItemVersionConflict[];
  /** Records dropped as minority versions (`itemVersions: 'majority'`). */
  droppedVersions: number;
  /** Repeated (model, item, presentation) rows (kept as replicates, reported). */
  duplicates: DuplicateRows;
}

/**
 * Read responses from any input llm-nrm knows, the one entry point of `fit` and `score`: tidy
 * files, or harness outputs detected as `convert` detects them (`-` reads standard input). The
 * damage rule of `convertSourced` applies; item ids that name different content are told apart
 * (`resolveItemVersions`), so no command merges two items. A calibration bundle given as input is
 * refused with a hint (swapped arguments).
 */
export async function readAnyResponses(paths: string | readonly string[], options: ReadAnyOptions = {}): Promise<AnyResponses> {
  const list = typeof paths === 'string' ? [paths] : [...paths];
  for (const p of list) {
    if (isStdinPath(p)) continue;
    const st = await stat(p).catch(() => undefined);
    if (st?.isFile() && (await isToolOutput(p))) {
      throw new LlmNrmError('INVALID_OPTION', 'this is an llm-nrm output (a calibration bundle or score summary), not responses: were the arguments swapped?', {
        file: options.names?.get(p) ?? p,
      });
    }
  }
  const { batches, summary } = convertSourcedBatches(list, options);
  const records: ResponseRecord[] = [];
  const sources: (RecordSource & { file: string })[] = [];
  for await (const batch of batches) {
    for (const { record, source } of batch) {
      records.push(record);
      sources.push(source);
    }
  }
  const v = resolveItemVersions(records, options.itemVersions ?? 'split');
  return {
    records: v.records,
    sources: v.index.map((t) => sources[t]!),
    summary,
    itemVersions: v.conflicts,
    droppedVersions: v.dropped,
    duplicates: duplicateRows(v.records),
  };
}
