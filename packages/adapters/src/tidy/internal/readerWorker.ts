// A worker thread of the threaded tidy read (threadedRead.ts): parses and checks the records of one
// piece of the file (a JSON Lines byte range or Parquet row groups), exactly as the serial read
// does (readPiece, checkRow), and posts them back in the compact form of recordEncoding.ts, one batch
// per batch of rows read.
import { parentPort, workerData } from 'node:worker_threads';
import { LlmNrmError } from '@llm-nrm/core/record';
import { BatchEncoder, type EncodedBatch } from './recordEncoding.js';
import { checkRow } from './sourcedBatches.js';
import { readPiece, type TidyPiece } from './tidyPiece.js';

/** What the worker is started with. */
export interface ReaderWorkerData {
  file: string;
  piece: TidyPiece;
  skipInvalid: boolean;
}

/** What it posts: batches, then one end (with the chunk's line count, or the error that stopped it). */
export type ReaderWorkerMessage =
  { t: 'batch'; batch: EncodedBatch } | { t: 'end'; lines: number; error?: { code: LlmNrmError['code']; message: string; line: number | undefined } };

/** An LlmNrmError's message without the "file:line: " its constructor put first. */
function bare(e: LlmNrmError): string {
  const where = e.file !== undefined ? `${e.file}${e.line !== undefined ? `:${e.line}` : ''}: ` : e.line !== undefined ? `line ${e.line}: ` : '';
  return where !== '' && e.message.startsWith(where) ? e.message.slice(where.length) : e.message;
}

async function run(data: ReaderWorkerData, post: (m: ReaderWorkerMessage) => void): Promise<void> {
  const enc = new BatchEncoder();
  const counter = { lines: 0 };
  const send = (): void => {
    const batch = enc.take();
    post({ t: 'batch', batch });
  };
  try {
    for await (const rows of readPiece(data.file, data.piece, counter)) {
      for (const row of rows) {
        const record = checkRow(row, { adopt: true });
        if (record instanceof LlmNrmError) {
          if (!data.skipInvalid) {
            send();
            post({ t: 'end', lines: counter.lines, error: { code: record.code, message: record.message, line: row.line } });
            return;
          }
          enc.skip(row.line, record.message);
          continue;
        }
        enc.add(record, row.line);
      }
      send();
    }
  } catch (e) {
    if (!(e instanceof LlmNrmError)) throw e;
    send();
    post({ t: 'end', lines: counter.lines, error: { code: e.code, message: bare(e), line: e.line } });
    return;
  }
  post({ t: 'end', lines: counter.lines });
}

if (parentPort !== null) {
  const port = parentPort;
  // A batch's arrays are views of a shared slab (recordEncoding.ts): posted, not transferred.
  void run(workerData as ReaderWorkerData, (m) => port.postMessage(m));
}
