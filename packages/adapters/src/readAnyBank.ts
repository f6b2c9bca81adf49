import { createBankBuilder, type BankFromRecordsOptions, type BankStats, type ResponseBank } from '@llm-nrm/core';
import { readAnyInto, type AnyRead, type ReadAnyIntoOptions } from './readAnyInto.js';

/** Options of `readAnyBank`: the reading of `readAnyInto` and the building of `bankFromRecords`. */
export interface ReadAnyBankOptions extends ReadAnyIntoOptions {
  /** Drop LLMs and items with no observed cell instead of stopping. */
  dropEmpty?: boolean;
  /** Fix the item list (scoring against a calibrated bank), as `bankFromRecords`' `items`. */
  items?: BankFromRecordsOptions['items'];
  /** Drop the records' keys (`fit --ignore-key`): a key-free bank, as `bankFromRecords`' `ignoreKey`. */
  ignoreKey?: boolean;
}

/** What `readAnyBank` read: the bank and what was found on the way (no records). */
export interface AnyBank extends Omit<AnyRead<unknown>, 'result'> {
  bank: ResponseBank;
  stats: BankStats;
}

/**
 * Read responses from any input (as `readAnyResponses`) straight into a bank (`readAnyInto` with a
 * bank builder): each batch of records goes into the bank's typed arrays as it is read and is
 * dropped, so memory follows the option entries, not the parsed records (`llm-nrm fit` at 189 x
 * 31,554, 6M records, peaks at 1.16 GB resident: packages/cli/BENCHMARKS.md, "Paper scale through
 * the CLI"). The bank is the one `bankFromRecords(readAnyResponses(...).records)` builds, bit for bit.
 */
export async function readAnyBank(paths: string | readonly string[], options: ReadAnyBankOptions = {}): Promise<AnyBank> {
  const bankOptions: BankFromRecordsOptions = { skipInvalid: options.skipInvalid ?? false, dropEmpty: options.dropEmpty ?? false, checked: true };
  if (options.items !== undefined) bankOptions.items = options.items;
  if (options.ignoreKey === true) bankOptions.ignoreKey = true;
  const { result, ...read } = await readAnyInto(paths, options, () => createBankBuilder(bankOptions));
  return { ...result, ...read };
}
