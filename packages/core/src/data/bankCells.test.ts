import { describe, expect, it } from 'vitest';
import { BankCells, CELL_CHUNK, POOL_CHUNK } from './bankCells.js';

/** Store n cells of 2 to 7 options through slot/push (cell c's floats are c + t / 10); an invalid record every 7th writes its slot and is not pushed. */
function fill(cells: BankCells, n: number): number[] {
  const ks: number[] = [];
  for (let c = 0; c < n; c++) {
    const k = 2 + (c % 6);
    if (c % 7 === 3) {
      // Written, then dropped (a record found invalid after its distribution): no trace.
      const junk = cells.slot(k);
      for (let t = 0; t < k; t++) junk.array[junk.at + t] = -1;
    }
    const { array, at } = cells.slot(k);
    for (let t = 0; t < k; t++) array[at + t] = c + t / 10;
    cells.push(c % 5, 3 * c, k, c % 2 === 0, c % 3 === 0 ? c / 8 : NaN);
    ks.push(k);
  }
  return ks;
}

describe('BankCells', () => {
  it.each([
    ['small chunks (many of each)', 8, 16],
    ['chunks smaller than the first allocation', 3, 9],
    ['the default chunks (one of each)', CELL_CHUNK, POOL_CHUNK],
  ])('gives back every cell and its distribution in order across %s, releasing chunks as drained', (_, cellChunk, poolChunk) => {
    const cells = new BankCells(cellChunk, poolChunk);
    const n = 300;
    const ks = fill(cells, n);
    expect(cells.n).toBe(n);
    if (cellChunk < n) expect(cells.chunks.length).toBe(Math.ceil(n / cellChunk));
    let c = 0;
    const seenChunks = new Set<unknown>();
    cells.drain((ch, i, pool, at) => {
      seenChunks.add(ch);
      expect(ch.model[i]).toBe(c % 5);
      expect(ch.column[i]).toBe(3 * c);
      expect(ch.k[i]).toBe(ks[c]);
      expect(ch.hard[i]).toBe(c % 2 === 0 ? 1 : 0);
      if (c % 3 === 0) expect(ch.leakage[i]).toBe(Math.fround(c / 8));
      else expect(ch.leakage[i]).toBeNaN();
      expect(Array.from(pool.subarray(at, at + ks[c]!))).toEqual(Array.from({ length: ks[c]! }, (_, t) => Math.fround(c + t / 10)));
      c++;
    });
    expect(c).toBe(n);
    expect(seenChunks.size).toBe(cellChunk < n ? Math.ceil(n / cellChunk) : 1);
    // Every chunk released: nothing of the cells stays reachable from the builder.
    expect(cells.chunks.every((ch) => ch === null)).toBe(true);
  });

  it('starts small: a bank of a few cells does not take a full chunk', () => {
    const cells = new BankCells();
    fill(cells, 10);
    expect(cells.chunks[0]!.model.length).toBeLessThan(CELL_CHUNK);
    expect(cells.slot(2).array.length).toBeLessThan(POOL_CHUNK);
  });
});
