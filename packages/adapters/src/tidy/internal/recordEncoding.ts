// The compact form in which a worker thread hands back the records of its chunk of a tidy
// file (threadedRead.ts): a structured clone of 189,000 record objects costs the main thread about as
// much as parsing them (0.68 s against 0.8 s of JSON.parse at 189 x 2,000), so the usual record
// (model, item, key, benchmark and one response) travels as integers and doubles in transferred
// buffers plus a table of its strings, and only records with further fields (texts, positions...)
// are cloned whole. The main thread rebuilds each record as parseResponseRecord built it.
import type { ResponseRecord } from '@llm-nrm/core';
import { IdNumbers } from '@llm-nrm/core/record';

/** Integers per record: line, model, item, benchmark (-1 none), key, kind, option count or choice. */
const STRIDE = 7;
const PROBS = 0;
const LOGPROBS = 1;
const CHOICE = 2;
const NO_CHOICE = 3;
/** The record is in `whole` (it has fields beyond the compact ones). */
const WHOLE = 4;
const INT_MAX = 0x7fffffff;
/**
 * Bytes of one slab of shared memory that a worker copies its batches into, one after another.
 * Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), so a slab is a mapping of its
 * own, returned to the system once both threads have dropped it. Batches in buffers of their own,
 * transferred and then freed by the main thread, went back to the worker's malloc arena, where no
 * later allocation of the main thread reuses them: at 189 x 31,554 (the worker's batches queue
 * while this thread reads the first chunk) about 200 MB stayed resident through the whole fit
 * (issue 28; cli/BENCHMARKS.md).
 */
const SLAB_BYTES = 48 << 20;

/** One batch of a chunk's records, and the lines skipped in it (`skipInvalid`), in line order. */
export interface EncodedBatch {
  ints: Int32Array;
  values: Float64Array;
  /** Strings first used in this batch, appended to the chunk's table in order. */
  strings: string[];
  /** Records that are not compact, in order. */
  whole: ResponseRecord[];
  skipped: { line: number; reason: string }[];
}

/** `id` with the last string's answer kept: a run of records repeats its model and benchmark. */
function lastOf(id: (s: string) => number): (s: string) => number {
  let last: string | undefined;
  let n = -1;
  return (s) => {
    if (s !== last) {
      last = s;
      n = id(s);
    }
    return n;
  };
}

/** Builds EncodedBatches (worker side). */
export class BatchEncoder {
  private readonly table = new Map<string, number>();
  private ints = new Int32Array(STRIDE * 8192);
  private values = new Float64Array(8 * 8192);
  private nInts = 0;
  private nValues = 0;
  private strings: string[] = [];
  private whole: ResponseRecord[] = [];
  private skipped: { line: number; reason: string }[] = [];
  private slab: SharedArrayBuffer | null = null;
  private slabAt = 0;
  count = 0;

  // Fast paths around the table's map (a lookup per string was 1.2-1.6 s of a paper-scale read's
  // worker): a run's model and benchmark repeat, and items are numbered by `IdNumbers`' guess, each
  // item number keeping its table number.
  private readonly modelId = lastOf((s) => this.id(s));
  private readonly benchmarkId = lastOf((s) => this.id(s));
  private readonly items = new IdNumbers();
  private readonly itemTable: number[] = [];

  private id(s: string): number {
    let i = this.table.get(s);
    if (i === undefined) {
      i = this.table.size;
      this.table.set(s, i);
      this.strings.push(s);
    }
    return i;
  }

  private itemId(s: string): number {
    const n = this.items.number(s);
    return (this.itemTable[n] ??= this.id(s));
  }

  private room(ints: number, values: number): void {
    if (this.nInts + ints > this.ints.length) {
      const grown = new Int32Array(2 * (this.nInts + ints));
      grown.set(this.ints.subarray(0, this.nInts));
      this.ints = grown;
    }
    if (this.nValues + values > this.values.length) {
      const grown = new Float64Array(2 * (this.nValues + values));
      grown.set(this.values.subarray(0, this.nValues));
      this.values = grown;
    }
  }

  add(record: ResponseRecord, line: number): void {
    this.count++;
    const r = record;
    let fields = 3 + (r.benchmark !== undefined ? 1 : 0);
    let kind = WHOLE;
    let last = 0;
    let xs: number[] | undefined;
    if (r.probs !== undefined) {
      kind = PROBS;
      xs = r.probs;
      last = xs.length;
      fields++;
    } else if (r.logprobs !== undefined) {
      kind = LOGPROBS;
      xs = r.logprobs;
      last = xs.length;
      fields++;
    } else if (r.choice !== undefined) {
      kind = r.choice === null ? NO_CHOICE : CHOICE;
      last = r.choice ?? 0;
      fields++;
    }
    // Any other field (options, position, texts, source, or one added to ResponseRecord later: the
    // fields are counted, not named), or a number an Int32 cannot hold: the record goes whole.
    let n = 0;
    for (const _ in r) n++;
    // A key-free record (no key) goes whole too: the packed form always holds a key.
    if (n !== fields || r.key === undefined || r.key > INT_MAX || last > INT_MAX) kind = WHOLE;
    this.room(STRIDE, xs !== undefined && kind !== WHOLE ? xs.length : 0);
    const o = this.nInts;
    const I = this.ints;
    this.nInts += STRIDE;
    I[o] = line;
    I[o + 5] = kind;
    if (kind === WHOLE) {
      this.whole.push(r);
      return;
    }
    I[o + 1] = this.modelId(r.model);
    I[o + 2] = this.itemId(r.item);
    I[o + 3] = r.benchmark !== undefined ? this.benchmarkId(r.benchmark) : -1;
    I[o + 4] = r.key!;
    I[o + 6] = last;
    if (xs !== undefined) {
      const V = this.values;
      let v = this.nValues;
      for (let t = 0; t < xs.length; t++) V[v++] = xs[t]!;
      this.nValues = v;
    }
  }

  skip(line: number, reason: string): void {
    this.skipped.push({ line, reason });
  }

  /** The batch so far (its filled part copied into the current slab, shared with the main thread), and a fresh one begun. */
  take(): EncodedBatch {
    const valueBytes = this.nValues * 8;
    const bytes = valueBytes + Math.ceil(this.nInts / 2) * 8;
    if (this.slab === null || this.slabAt + bytes > this.slab.byteLength) {
      this.slab = new SharedArrayBuffer(Math.max(SLAB_BYTES, bytes));
      this.slabAt = 0;
    }
    const values = new Float64Array(this.slab, this.slabAt, this.nValues);
    values.set(this.values.subarray(0, this.nValues));
    const ints = new Int32Array(this.slab, this.slabAt + valueBytes, this.nInts);
    ints.set(this.ints.subarray(0, this.nInts));
    this.slabAt += bytes;
    const b: EncodedBatch = {
      ints,
      values,
      strings: this.strings,
      whole: this.whole,
      skipped: this.skipped,
    };
    this.nInts = 0;
    this.nValues = 0;
    this.strings = [];
    this.whole = [];
    this.skipped = [];
    this.count = 0;
    return b;
  }
}

/** Rebuilds a chunk's records (main thread), with the chunk's string table grown batch by batch. */
export class BatchDecoder {
  private readonly table: string[] = [];

  /** Calls `each(record, line)` for the batch's records in order (lines as the worker numbered them). */
  decode(b: EncodedBatch, each: (record: ResponseRecord, line: number) => void): void {
    for (const s of b.strings) this.table.push(s);
    const S = this.table;
    const ints = b.ints;
    const vals = b.values;
    let v = 0;
    let w = 0;
    for (let o = 0; o < ints.length; o += STRIDE) {
      const kind = ints[o + 5]!;
      if (kind === WHOLE) {
        each(b.whole[w++]!, ints[o]!);
        continue;
      }
      // Fields in parseResponseRecord's order, so the objects share its shape.
      const r: ResponseRecord = { model: S[ints[o + 1]!]!, item: S[ints[o + 2]!]!, key: ints[o + 4]! };
      const bench = ints[o + 3]!;
      if (bench >= 0) r.benchmark = S[bench]!;
      if (kind === CHOICE) r.choice = ints[o + 6]!;
      else if (kind === NO_CHOICE) r.choice = null;
      else {
        const k = ints[o + 6]!;
        const xs: number[] = [];
        for (let t = 0; t < k; t++) xs.push(vals[v++]!);
        if (kind === PROBS) r.probs = xs;
        else r.logprobs = xs;
      }
      each(r, ints[o]!);
    }
  }
}
