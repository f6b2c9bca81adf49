import { stat } from 'node:fs/promises';
import { LlmNrmError, type DuplicateRows, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import { duplicateRowCounter, singleContentCheck } from '@llm-nrm/core/record';
import { convertSourcedBatches } from './convert.js';
import { readsOnce, spoolInputs } from './internal/stdin.js';
import { readAnyResponses, type AnyResponses, type ReadAnyOptions } from './readAnyResponses.js';
import { reclaimMemory, reclaimWhenGrown } from './reclaimMemory.js';
import { expectedRecords, type ExpectedRecords } from './tidy/expectedRecords.js';
import { isToolOutput } from './walk.js';

export { readAnyInto, type AnyRead, type ReadAnyIntoOptions, type RecordSink };

/** What takes records as they are read (a bank builder, a tally): `add` each one, then `finish`. */
interface RecordSink<T> {
  add(record: ResponseRecord, source: RecordSource & { file: string }): void;
  finish(): T;
}

/** Options of `readAnyInto`: the reading of `readAnyResponses`, and a long read's progress. */
interface ReadAnyIntoOptions extends ReadAnyOptions {
  /**
   * Called after each batch of records taken, with the records so far and, where the inputs tell
   * it without a read (Parquet's footer; a plain JSON Lines file's size over its first lines'
   * length), how many to expect: a long read's progress line.
   */
  onProgress?: (p: { records: number; expected: ExpectedRecords | undefined }) => void;
}

/** What `readAnyInto` read: the sink's result and what was found on the way (no records). */
interface AnyRead<T> extends Omit<AnyResponses, 'records' | 'sources'> {
  result: T;
  /** Whether the records flowed into the sink without being kept (false: read whole, see below). */
  streamed: boolean;
}

/**
 * Read responses from any input (as `readAnyResponses`) into a sink: each batch of records goes to
 * the sink as it is read and is dropped, so memory follows what the sink keeps, not the parsed
 * records. Duplicates are counted on the way. The sink sees the records `readAnyResponses` returns,
 * in its order, with their sources. Standard input and pipes (`readsOnce`) are first copied to
 * temporary files (`spoolInputs`) and read like files, named as given. An item id found naming
 * different content (`--item-versions` must see every record to choose ids) restarts the read whole,
 * as `readAnyResponses` reads, with a fresh sink (`start` again).
 */
async function readAnyInto<T>(paths: string | readonly string[], options: ReadAnyIntoOptions, start: () => RecordSink<T>): Promise<AnyRead<T>> {
  const list = typeof paths === 'string' ? [paths] : [...paths];
  // Standard input and pipes cannot be read twice (a restart would find them empty): copied to
  // temporary files first, then streamed like any file, named as given.
  if (options.names === undefined && (await Promise.all(list.map(readsOnce))).some(Boolean)) {
    const copies = await spoolInputs(list);
    try {
      return await readAnyInto(copies.paths, { ...options, names: copies.names }, start);
    } finally {
      copies.cleanup();
    }
  }
  const streamed = await streamInto(list, options, start);
  if (streamed !== null) return streamed;
  const input = await readAnyResponses(list, options);
  const sink = start();
  input.records.forEach((r, i) => sink.add(r, input.sources[i]!));
  const { summary, itemVersions, droppedVersions, duplicates } = input;
  return { result: sink.finish(), summary, itemVersions, droppedVersions, duplicates: duplicates as DuplicateRows, streamed: false };
}

/** `readAnyInto`'s stream over files: null where an item id names a second content (the read stops there). */
async function streamInto<T>(list: string[], options: ReadAnyIntoOptions, start: () => RecordSink<T>): Promise<AnyRead<T> | null> {
  for (const p of list) {
    const st = await stat(p).catch(() => undefined);
    if (st?.isFile() && (await isToolOutput(p))) {
      throw new LlmNrmError('INVALID_OPTION', 'this is an llm-nrm output (a calibration bundle or score summary), not responses: were the arguments swapped?', {
        file: options.names?.get(p) ?? p,
      });
    }
  }
  const onProgress = options.onProgress;
  const expected = onProgress !== undefined ? await expectedRecords(list) : undefined;
  let taken = 0;
  const { batches, summary } = convertSourcedBatches(list, options);
  const sink = start();
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
      sink.add(record, source);
    }
    taken += batch.length;
    onProgress?.({ records: taken, expected });
    reclaim();
  }
  if (versions) return null;
  // The rows and the readers' batches are dead: gone before the sink takes its own memory.
  reclaimMemory();
  const result = sink.finish();
  return { result, summary, itemVersions: [], droppedVersions: 0, duplicates: duplicates.result(), streamed: true };
}
