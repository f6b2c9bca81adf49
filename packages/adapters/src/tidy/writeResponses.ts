import { PassThrough, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { DataType, Table, Vector } from 'apache-arrow';
import type { SchemaElement } from 'hyparquet-writer';
import { LlmNrmError, parseResponseRecord, type ResponseRecord } from '@llm-nrm/core';
import { writeFileAtomic, writeStreamAtomic } from '../atomic.js';
import { formatResponseRecord } from './formatResponseRecord.js';
import { TIDY_COLUMNS, recordColumns, type TidyColumnType } from './tidyColumns.js';
import { tidyFormatFromExtension, type TidyFileFormat } from './tidyFileFormat.js';

export interface WriteResponsesOptions {
  /** Container. Default: from the extension (`.jsonl`, `.jsonl.gz`, `.arrow`, `.parquet`). */
  format?: TidyFileFormat;
  /** Gzip JSON Lines. Default: when the path ends in `.gz`. */
  gzip?: boolean;
  /** Records per Arrow record batch / Parquet row group. Default 65536. */
  batchSize?: number;
  /** Called after each record is written with the running count (progress display). Default none. */
  onRecord?: (count: number) => void;
  /**
   * The records are `parseResponseRecord`'s own (a reader's: `convertSourcedBatches`), so not
   * validated again (a sixth of `convert`'s time at paper scale). Default false.
   */
  checked?: boolean;
}

/**
 * Write tidy records to `path` atomically (temporary file + rename), as JSON Lines (gzip when the
 * path ends in `.gz`), Arrow IPC file format or Parquet, chosen by the extension. Each record is
 * validated first, so the file always reads back; a bad one throws `INVALID_RECORD` naming its
 * 1-based index and no file is left behind. Returns the number of records written.
 */
export async function writeResponses(
  records: Iterable<ResponseRecord> | AsyncIterable<ResponseRecord>,
  path: string,
  options: WriteResponsesOptions = {},
): Promise<{ records: number }> {
  // `-` is standard output: JSON Lines unless told otherwise.
  const format = options.format ?? (path === '-' ? 'jsonl' : tidyFormatFromExtension(path));
  if (format === undefined) {
    throw new LlmNrmError('INVALID_OPTION', `unknown responses file extension: ${path} (use .jsonl, .jsonl.gz, .arrow or .parquet)`, { file: path });
  }
  const counter = { n: 0 };
  const checked = validated(records, counter, options.onRecord, options.checked ?? false);
  const batchSize = options.batchSize ?? 65536;
  if (format === 'jsonl') await writeJsonl(checked, path, options.gzip ?? /\.gz$/i.test(path));
  else if (format === 'arrow') await writeArrow(checked, path, batchSize);
  else await writeParquet(checked, path, batchSize);
  return { records: counter.n };
}

async function* validated(
  records: Iterable<ResponseRecord> | AsyncIterable<ResponseRecord>,
  counter: { n: number },
  onRecord: ((count: number) => void) | undefined,
  checked: boolean,
): AsyncGenerator<ResponseRecord> {
  for await (const r of records) {
    let clean: ResponseRecord = r;
    if (!checked) {
      try {
        clean = parseResponseRecord(r);
      } catch (e) {
        const err = e as LlmNrmError;
        throw new LlmNrmError(err.code ?? 'INVALID_RECORD', `record ${counter.n + 1}: ${err.message}`, { cause: e });
      }
    }
    counter.n++;
    onRecord?.(counter.n);
    yield clean;
  }
}

async function* inBatches(records: AsyncIterable<ResponseRecord>, size: number): AsyncGenerator<ResponseRecord[]> {
  let batch: ResponseRecord[] = [];
  for await (const r of records) {
    batch.push(r);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function writeJsonl(records: AsyncIterable<ResponseRecord>, path: string, gzip: boolean): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    // Join lines into chunks of about 64 KiB: one write per line is slow.
    let chunk = '';
    for await (const r of records) {
      chunk += formatResponseRecord(r) + '\n';
      if (chunk.length >= 65536) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  }
  const source = Readable.from(lines());
  if (!gzip) return rethrowInvalid(writeStreamAtomic(path, source));
  // pipe() does not pass an error on: the records' failure (a read error mid-file) would be an
  // unhandled 'error' event; the gzip stream fails with it instead, and the write with that.
  const gz = createGzip();
  // The write's pipeline takes gz's error; until it is set up, a failure would be an unhandled 'error' event.
  gz.on('error', () => undefined);
  source.on('error', (e) => gz.destroy(e));
  await rethrowInvalid(writeStreamAtomic(path, source.pipe(gz)));
}

/** writeStreamAtomic wraps every failure as IO; an invalid record should keep its own code. */
async function rethrowInvalid(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (e) {
    let cause: unknown = e;
    while (cause instanceof Error) {
      if (cause instanceof LlmNrmError && cause.code !== 'IO') throw cause;
      cause = cause.cause;
    }
    throw e;
  }
}

// Arrow and Parquet's libraries are loaded by the writers that use them, not with this module
// (about 0.25 s of every start of the CLI otherwise).
type Arrow = typeof import('apache-arrow');

function arrowType(arrow: Arrow, type: TidyColumnType): DataType {
  const { Field, Float64, Int32, List, Utf8 } = arrow;
  switch (type) {
    case 'string':
      return new Utf8();
    case 'int':
      return new Int32();
    case 'float':
      return new Float64();
    case 'string[]':
      return new List(new Field('item', new Utf8(), false));
    case 'int[]':
      return new List(new Field('item', new Int32(), false));
    case 'float[]':
      return new List(new Field('item', new Float64(), false));
  }
}

function arrowTable(arrow: Arrow, batch: readonly ResponseRecord[]): Table {
  const cols = recordColumns(batch);
  const vectors: Record<string, Vector> = {};
  for (const c of TIDY_COLUMNS) vectors[c.name] = arrow.vectorFromArray(cols.get(c.name)!, arrowType(arrow, c.type)) as Vector;
  return new arrow.Table(vectors);
}

async function writeArrow(records: AsyncIterable<ResponseRecord>, path: string, batchSize: number): Promise<void> {
  const arrow = await import('apache-arrow');
  const writer = new arrow.RecordBatchFileWriter();
  // The file streams out while batches are built, so memory holds about one batch. It goes to the
  // file through a PassThrough, which a failure fails: apache-arrow's node stream destroyed with an
  // error throws it into its byte queue, whose rejection nothing handles (an unhandled rejection
  // that ended the process on a read error mid-file), and destroyed without one it ends cleanly (the
  // partial file would be renamed into place).
  const stream = writer.toNodeStream();
  const pass = new PassThrough();
  // The write's pipeline takes its error; until it is set up (the output's folder checked first) a
  // failure would be an unhandled 'error' event.
  pass.on('error', () => undefined);
  stream.pipe(pass);
  const sink = writeStreamAtomic(path, pass);
  try {
    let any = false;
    for await (const batch of inBatches(records, batchSize)) {
      for (const b of arrowTable(arrow, batch).batches) writer.write(b);
      any = true;
    }
    // An empty table still carries the schema, so the file reads back as zero records.
    if (!any) writer.write(arrowTable(arrow, []));
    writer.finish();
  } catch (e) {
    // Failing the stream makes writeStreamAtomic remove the temporary file.
    pass.destroy(e as Error);
    stream.unpipe(pass);
    stream.destroy();
    await sink.catch(() => undefined);
    throw e;
  }
  await sink;
}

const PARQUET_LEAF: Record<string, Omit<SchemaElement, 'name' | 'repetition_type'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  int: { type: 'INT32' },
  float: { type: 'DOUBLE' },
};

/** The Parquet schema of the tidy columns: lists as the standard 3-level LIST. */
function parquetSchema(): SchemaElement[] {
  const schema: SchemaElement[] = [{ name: 'root', num_children: TIDY_COLUMNS.length }];
  for (const c of TIDY_COLUMNS) {
    const repetition_type = c.required ? 'REQUIRED' : 'OPTIONAL';
    if (c.type.endsWith('[]')) {
      schema.push({ name: c.name, repetition_type, converted_type: 'LIST', num_children: 1 });
      schema.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      schema.push({ name: 'element', repetition_type: 'REQUIRED', ...PARQUET_LEAF[c.type.slice(0, -2)]! });
    } else {
      schema.push({ name: c.name, repetition_type, ...PARQUET_LEAF[c.type]! });
    }
  }
  return schema;
}

async function writeParquet(records: AsyncIterable<ResponseRecord>, path: string, batchSize: number): Promise<void> {
  // Parquet's footer needs every row group's offset, so the bytes are assembled in memory (they are
  // compact: about 10x smaller than the records) and then written atomically.
  const { ByteWriter, ParquetWriter } = await import('hyparquet-writer');
  const writer = new ByteWriter();
  const pw = new ParquetWriter({ writer, schema: parquetSchema(), createdBy: 'llm-nrm' });
  for await (const batch of inBatches(records, batchSize)) {
    const cols = recordColumns(batch);
    await pw.write({ columnData: TIDY_COLUMNS.map((c) => ({ name: c.name, data: cols.get(c.name)! })), rowGroupSize: batch.length });
  }
  pw.finish();
  await writeFileAtomic(path, new Uint8Array(writer.getBuffer()));
}
