import { stat } from 'node:fs/promises';
import { LlmNrmError, bankFromRecords, createBankBuilder, type BankFromRecordsOptions, type BankStats, type ResponseBank } from '@llm-nrm/core';
import { duplicateRowCounter, singleContentCheck } from '@llm-nrm/core/record';
import { convertSourcedBatches } from './convert.js';
import { isStdinPath } from './internal/stdin.js';
import { readAnyResponses, type AnyResponses, type ReadAnyOptions } from './readAnyResponses.js';
import { reclaimMemory, reclaimWhenGrown } from './reclaimMemory.js';
import { expectedRecords, type ExpectedRecords } from './tidy/expectedRecords.js';
import { isToolOutput } from './walk.js';

/** Options of `readAnyBank`: the reading of `readAnyResponses` and the building of `bankFromRecords`. */
export interface ReadAnyBankOptions extends ReadAnyOptions {
  /** Drop LLMs and items with no observed cell instead of stopping. */
  dropEmpty?: boolean;
  /** Fix the item list (scoring against a calibrated bank), as `bankFromRecords`' `items`. */
  items?: BankFromRecordsOptions['items'];
  /** Drop the records' keys (`fit --ignore-key`): a key-free bank, as `bankFromRecords`' `ignoreKey`. */
  ignoreKey?: boolean;
  /**
   * Called after each batch of records taken into the bank, with the records so far and, where
   * the inputs tell it without a read (Parquet's footer; a plain JSON Lines file's size over its
   * first lines' length), how many to expect: a long read's progress line.
   */
  onProgress?: (p: { records: number; expected: ExpectedRecords | undefined }) => void;
}

/** What `readAnyBank` read: the bank and what was found on the way (no records). */
export interface AnyBank extends Omit<AnyResponses, 'records' | 'sources'> {
  bank: ResponseBank;
  stats: BankStats;
  /** Whether the records flowed into the bank without being kept (false: read whole, see below). */
  streamed: boolean;
}

/**
 * Read responses from any input (as `readAnyResponses`) straight into a bank: each batch of
 * records goes into the bank's typed arrays as it is read and is dropped, so memory follows the
 * option entries, not the parsed records (`llm-nrm fit` at 189 x 31,554, 6M records, peaks at
 * 1.16 GB resident: packages/cli/BENCHMARKS.md, "Paper scale through the CLI"). Duplicates are counted on the way. The bank is the one
 * `bankFromRecords(readAnyResponses(...).records)` builds, bit for bit; two cases take that very
 * path instead: standard input (it cannot be read twice), and an item id found naming different
 * content (`--item-versions` must see every record to choose ids), which restarts the read whole.
 */
export async function readAnyBank(paths: string | readonly string[], options: ReadAnyBankOptions = {}): Promise<AnyBank> {
  const list = typeof paths === 'string' ? [paths] : [...paths];
  const bankOptions: BankFromRecordsOptions = { skipInvalid: options.skipInvalid ?? false, dropEmpty: options.dropEmpty ?? false, checked: true };
  if (options.items !== undefined) bankOptions.items = options.items;
  if (options.ignoreKey === true) bankOptions.ignoreKey = true;
  if (!list.some(isStdinPath)) {
    for (const p of list) {
      const st = await stat(p).catch(() => undefined);
      if (st?.isFile() && (await isToolOutput(p))) {
        throw new LlmNrmError(
          'INVALID_OPTION',
          'this is an llm-nrm output (a calibration bundle or score summary), not responses: were the arguments swapped?',
          {
            file: p,
          },
        );
      }
    }
    const onProgress = options.onProgress;
    const expected = onProgress !== undefined ? await expectedRecords(list) : undefined;
    let taken = 0;
    const { batches, summary } = convertSourcedBatches(list, options);
    const builder = createBankBuilder(bankOptions);
    const duplicates = duplicateRowCounter();
    const oneContent = singleContentCheck();
    let versions = false;
    // Dead rows and batches bounded as the read goes (reclaimMemory.ts).
    const reclaim = reclaimWhenGrown();
    // Leaving the loop early (a second version, an invalid record) stops the reader: its files and threads.
    read: for await (const batch of batches) {
      for (const { record, source } of batch) {
        if (!oneContent(record)) {
          versions = true;
          break read;
        }
        duplicates.add(record);
        builder.add(record, source);
      }
      taken += batch.length;
      onProgress?.({ records: taken, expected });
      reclaim();
    }
    if (!versions) {
      // The rows and the readers' batches are dead: gone before the bank takes its own memory.
      reclaimMemory();
      const { bank, stats } = builder.finish();
      return { bank, stats, summary, itemVersions: [], droppedVersions: 0, duplicates: duplicates.result(), streamed: true };
    }
  }
  const input = await readAnyResponses(list, options);
  const { bank, stats } = bankFromRecords(input.records, { ...bankOptions, sources: input.sources });
  const { summary, itemVersions, droppedVersions, duplicates } = input;
  return { bank, stats, summary, itemVersions, droppedVersions, duplicates, streamed: false };
}
