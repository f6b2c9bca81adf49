// The compact form of a worker's records (recordEncoding.ts): batches decode to the records that
// went in, and their arrays are views of a shared slab, one slab for many batches (so the memory
// they take is a mapping of its own, not blocks of the worker's malloc arena).
import { describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { BatchDecoder, BatchEncoder, type EncodedBatch } from './recordEncoding.js';

function records(n: number): ResponseRecord[] {
  const out: ResponseRecord[] = [];
  for (let i = 0; i < n; i++) {
    const base = { model: `m${i % 3}`, item: `q${i}`, key: i % 4 };
    if (i % 4 === 0) out.push({ ...base, probs: [0.1, 0.2, 0.3, 0.4] });
    else if (i % 4 === 1) out.push({ ...base, benchmark: 'b', logprobs: [-1, -2, -0.5] });
    else if (i % 4 === 2) out.push({ ...base, choice: i % 2 === 0 ? 1 : null });
    else out.push({ ...base, choice: 2, options: ['a', 'b', 'c'] });
  }
  return out;
}

describe('BatchEncoder', () => {
  it('hands back batches that decode to the records, in views of one shared slab', () => {
    const input = records(40);
    const enc = new BatchEncoder();
    const batches: EncodedBatch[] = [];
    input.forEach((r, i) => {
      enc.add(r, i + 1);
      if (i % 7 === 6) batches.push(enc.take());
    });
    batches.push(enc.take());
    const dec = new BatchDecoder();
    const out: { record: ResponseRecord; line: number }[] = [];
    for (const b of batches) dec.decode(b, (record, line) => out.push({ record, line }));
    expect(out.map((o) => o.line)).toEqual(input.map((_, i) => i + 1));
    expect(out.map((o) => o.record)).toEqual(input);
    const slabs = new Set(batches.flatMap((b) => [b.ints.buffer, b.values.buffer]));
    expect(slabs.size).toBe(1);
    expect([...slabs][0]).toBeInstanceOf(SharedArrayBuffer);
    // Batches do not overlap in the slab.
    const spans = batches.flatMap((b) => [
      [b.values.byteOffset, b.values.byteOffset + b.values.byteLength],
      [b.ints.byteOffset, b.ints.byteOffset + b.ints.byteLength],
    ]);
    spans.sort((a, b) => a[0]! - b[0]!);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]!);
  });
});
