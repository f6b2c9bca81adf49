// The observed cells of a bank being built (createBankBuilder), in the order read, and their
// distributions: parallel typed arrays, no object per cell. Stored in fixed-size chunks rather than
// arrays doubled and copied: at 189 x 31,554 (6M cells, 35M option entries) doubling left about
// 0.5 GB of dead buffers behind the finished bank (a 268 MB pool of which 138 MB used, plus its
// 134 MB predecessor, and the cells' own), which the fit that followed never got back: `llm-nrm fit`
// peaked at 1.36 GB where the in-process fit holds 0.9 GB (packages/cli/BENCHMARKS.md). A chunk
// is one allocation of at least 32 MiB, above glibc's largest mmap threshold, so a released chunk
// goes back to the system instead of staying in the allocator's heap; `drain` releases each chunk
// as soon as the bank has taken its cells. The first chunk of each kind starts small and doubles
// up to the full size, so a small bank allocates little.

export { BankCells, CELL_CHUNK, POOL_CHUNK, type CellChunk };

/** Cells per full chunk (2^21: 18 bytes a cell, 36 MiB a chunk). */
const CELL_CHUNK = 1 << 21;
/** Floats per full distribution chunk (2^23: 32 MiB). */
const POOL_CHUNK = 1 << 23;

/** One chunk of cells: the views of one ArrayBuffer. */
interface CellChunk {
  n: number;
  model: Int32Array;
  column: Int32Array;
  /** The cell's distribution: its pool chunk times POOL_CHUNK plus its position there. */
  off: Uint32Array;
  /** NaN where not reported; float32 as the bank's leakage. */
  leakage: Float32Array;
  k: Uint8Array;
  hard: Uint8Array;
}

function cellChunk(size: number): CellChunk {
  const buffer = new ArrayBuffer(size * 18);
  return {
    n: 0,
    model: new Int32Array(buffer, 0, size),
    column: new Int32Array(buffer, 4 * size, size),
    off: new Uint32Array(buffer, 8 * size, size),
    leakage: new Float32Array(buffer, 12 * size, size),
    k: new Uint8Array(buffer, 16 * size, size),
    hard: new Uint8Array(buffer, 17 * size, size),
  };
}

function grownCells(a: CellChunk, size: number): CellChunk {
  const b = cellChunk(size);
  b.n = a.n;
  b.model.set(a.model);
  b.column.set(a.column);
  b.off.set(a.off);
  b.leakage.set(a.leakage);
  b.k.set(a.k);
  b.hard.set(a.hard);
  return b;
}

class BankCells {
  /** Cells stored. */
  n = 0;
  /** The chunks in order (null once drained). */
  readonly chunks: (CellChunk | null)[];
  private readonly pool: (Float32Array | null)[];
  /** Floats used in the last pool chunk. */
  private poolUsed = 0;

  /** Chunk sizes: the defaults, or small ones where a test crosses chunks. */
  constructor(
    private readonly cellChunkSize = CELL_CHUNK,
    private readonly poolChunkSize = POOL_CHUNK,
  ) {
    this.chunks = [cellChunk(Math.min(1 << 12, cellChunkSize))];
    this.pool = [new Float32Array(Math.min(1 << 16, poolChunkSize))];
  }

  /**
   * Where the next cell's k floats go: the current pool chunk and the position in it (room made
   * here; nothing is kept until `push`, so a record found invalid after writing leaves no trace).
   */
  slot(k: number): { array: Float32Array; at: number } {
    const last = this.pool.length - 1;
    let array = this.pool[last]!;
    if (this.poolUsed + k > array.length) {
      if (array.length < this.poolChunkSize) {
        // The first chunk doubles up to the full size (a small bank allocates little).
        const grown = new Float32Array(Math.min(this.poolChunkSize, 2 * array.length));
        grown.set(array.subarray(0, this.poolUsed));
        this.pool[last] = array = grown;
      } else {
        this.pool.push((array = new Float32Array(this.poolChunkSize)));
        this.poolUsed = 0;
      }
    }
    return { array, at: this.poolUsed };
  }

  /** Store a cell whose k floats were written at `slot(k)`. */
  push(model: number, column: number, k: number, hard: boolean, leakage: number): void {
    let chunk = this.chunks[this.chunks.length - 1]!;
    if (chunk.n === chunk.model.length) {
      if (chunk.n < this.cellChunkSize) this.chunks[this.chunks.length - 1] = chunk = grownCells(chunk, Math.min(this.cellChunkSize, 2 * chunk.n));
      else this.chunks.push((chunk = cellChunk(this.cellChunkSize)));
    }
    const i = chunk.n++;
    chunk.model[i] = model;
    chunk.column[i] = column;
    chunk.off[i] = (this.pool.length - 1) * this.poolChunkSize + this.poolUsed;
    chunk.k[i] = k;
    chunk.hard[i] = hard ? 1 : 0;
    chunk.leakage[i] = leakage;
    this.poolUsed += k;
    this.n++;
  }

  /**
   * Visit every cell in order with its distribution (`pool[at .. at + k)`), releasing each chunk
   * of cells and of distributions once passed: the last use of the cells.
   */
  drain(visit: (chunk: CellChunk, i: number, pool: Float32Array, at: number) => void): void {
    let released = 0;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      for (let i = 0; i < chunk.n; i++) {
        const off = chunk.off[i]!;
        const p = Math.floor(off / this.poolChunkSize);
        // Distributions are stored in cell order: every pool chunk before this one is done.
        while (released < p) this.pool[released++] = null;
        visit(chunk, i, this.pool[p]!, off - p * this.poolChunkSize);
      }
      this.chunks[c] = null;
    }
    this.pool.fill(null);
  }
}
