import { bankFromRecords, type BankFromRecordsOptions, type BankStats, type RecordSource, type ResponseBank, type ResponseRecord } from '@llm-nrm/core';
import { assertNotEmptyFile } from '../detect.js';
import { newReport, type ReadReport } from '../reader.js';
import { readResponseBatches, type ReadResponsesOptions } from './readResponses.js';

export interface LoadBankOptions extends ReadResponsesOptions, Omit<BankFromRecordsOptions, 'sources' | 'file'> {
  /**
   * Skip invalid records both when reading (shape, JSON) and when building the bank (probabilities
   * summing to zero, inconsistent keys), counting them in `report` / `stats`. Default false.
   */
  skipInvalid?: boolean;
}

/**
 * Read a tidy responses file (or folder) into a ResponseBank. Records keep their file and line,
 * so an error found by core's `bankFromRecords` (a probability vector summing to zero, an item
 * keyed differently in two records) names the line it came from.
 */
export async function loadBank(path: string, options: LoadBankOptions = {}): Promise<{ bank: ResponseBank; stats: BankStats; report: ReadReport }> {
  await assertNotEmptyFile(path);
  const report = options.report ?? newReport();
  const records: ResponseRecord[] = [];
  const sources: RecordSource[] = [];
  for await (const batch of readResponseBatches(path, { ...options, report })) {
    for (const { record, source } of batch) {
      records.push(record);
      sources.push(source);
    }
  }
  // The reader's records come out of parseResponseRecord: the bank does not check them again.
  const bankOptions: BankFromRecordsOptions = { sources, checked: true };
  if (options.items !== undefined) bankOptions.items = options.items;
  if (options.skipInvalid !== undefined) bankOptions.skipInvalid = options.skipInvalid;
  if (options.dropEmpty !== undefined) bankOptions.dropEmpty = options.dropEmpty;
  const { bank, stats } = bankFromRecords(records, bankOptions);
  return { bank, stats, report };
}
