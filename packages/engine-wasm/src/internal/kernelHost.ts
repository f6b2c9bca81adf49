// Lays a ResponseBank out in the kernel's memory (assembly/kernel.ts) and moves parameters in and
// gradients out. Rows (LLMs) are packed four to a "group" (the SIMD lanes) and groups into a fixed
// number of "blocks" that depend on the bank only, never on the thread count: each block owns its
// partial sums, and `reduce` adds them in block order, so the loss and gradient are the same bits
// whichever thread ran which block.
import { LlmNrmError, type LlmNrmLayout, type ResponseBank } from '@llm-nrm/core';
import { MAX_OPTIONS } from '@llm-nrm/core/engine';
import { kernelModule, type KernelExports, type KernelVariant } from './module.js';
import { PAGE, bumpAllocator } from './memoryLayout.js';

/** Header slots (i32) shared with assembly/kernel.ts. */
const H = {
  GROUPS: 0,
  C: 1,
  WIDTH: 2,
  KMAX: 3,
  FLAGS: 4,
  GROUPS_PER_BLOCK: 5,
  BLOCKS: 6,
  ROW_START: 7,
  ROW_END: 8,
  ROWS: 9,
  Q4: 10,
  MASK: 11,
  COL_ITEM: 12,
  COL_OFFSETS: 13,
  ITEM_OFFSETS: 14,
  COL_POS: 15,
  TH4: 16,
  S4: 17,
  DR4: 18,
  ACF: 20,
  BF: 22,
  GTH: 23,
  GS: 24,
  GDELTA: 25,
  GRHO: 26,
  BLOCK_SCALARS: 27,
  BLOCK_GB: 28,
  BLOCK_GAC: 29,
  SCRATCH: 30,
  ITEMS: 31,
  SUMK: 32,
  W0: 33,
  KAPPA: 34,
  OUT_GAC: 35,
  OUT_GB: 36,
  OUT_SCALARS: 37,
  // The parallel reduction (assembly/kernel.ts reduceSlice).
  RED_B0: 72,
  RED_B1: 73,
  RED_SLICES: 74,
  // The curvature passes (assembly/curvature.ts).
  CV_X: 40,
  CV_B: 41,
  CV_HL: 42,
  CV_HG: 43,
  CV_S0: 44,
  CV_S1: 45,
  CV_S2: 46,
  CV_SQ: 47,
  CV_U1: 48,
  CV_U0: 49,
  CV_HH: 50,
  CV_GB: 51,
  CV_ICOL_OFF: 52,
  CV_ICOL: 53,
  CV_ITEMS_PER_BLOCK: 54,
  CV_ROW: 55,
  CV_SCRATCH: 56,
  CV_ROW_STRIDE: 39,
  L_THETA: 57,
  L_A: 58,
  L_C: 59,
  L_DELTA: 60,
  L_RHO: 61,
  L_W0: 62,
  L_KBAR: 63,
  // The SEs' cross sums (assembly/curvature.ts CV_CROSS).
  CV_CROSS: 64,
  CV_HX: 65,
  CV_IG: 66,
  CV_EG: 67,
  // The preconditioner's passes in f32 lanes (assembly/curvature4.ts).
  CV_SIMD: 68,
  CV_SCRATCH4: 69,
  // The SEs' item corrections (assembly/curvature.ts curvCorrRows).
  CV_CORR: 70,
  CV_CM: 71,
  CV_BZ: 75,
} as const;
const HEADER_SLOTS = 76;
/** H.FLAGS bit of a pass that writes the model's p into the targets (assembly/kernel.ts PREDICT_TARGETS). */
const PREDICT_TARGETS = 8;
/** Curvature scratch bytes per block (assembly/curvature.ts CURV_SCRATCH, checked against its export). */
const CURV_SCRATCH_BYTES = 2 * MAX_OPTIONS * 8 + MAX_OPTIONS * 4 + (2 + 2 * MAX_OPTIONS) * 8;
/** Scratch bytes per block of the f32-lane curvature passes (assembly/curvature4.ts CURV4_SCRATCH, checked against its export). */
const CURV4_SCRATCH_BYTES = 2 * MAX_OPTIONS * 16 + MAX_OPTIONS * 4 + 16 + (2 + 2 * MAX_OPTIONS) * 16 + (2 + 2 * MAX_OPTIONS) ** 2 * 16;
const MAX_PAGES = 65536;
/** Scratch bytes per block (assembly/kernel.ts SCRATCH_BYTES, checked against its export). */
const SCRATCH_BYTES = 2 * MAX_OPTIONS * 16 + 96 + 2 * MAX_OPTIONS * 16 + 2 * MAX_OPTIONS * 32;
/** Blocks a bank is cut into (fewer when it has fewer groups): enough to balance a few threads. */
export const TARGET_BLOCKS = 16;
/** Slices of the item gradient a threaded reduction is cut into (`reduceTasks` = this + 1: the per-item sums). */
const REDUCE_SLICES = 16;

export interface KernelLayoutOptions {
  /** Groups (of four rows) per block; default ceil(groups / TARGET_BLOCKS). Tests use small blocks. */
  groupsPerBlock?: number;
}

/** One bank in one kernel memory, with a main-thread instance of the module on it. */
export class LlmNrmKernel {
  readonly variant: KernelVariant;
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  /** Byte address of the header. */
  readonly header: number;
  readonly groups: number;
  readonly groupsPerBlock: number;
  readonly blocks: number;
  readonly bytes: number;
  readonly th4: Float32Array;
  readonly s4: Float32Array;
  /** Per group and position: 4 delta lanes, then 4 rho lanes. */
  readonly dr4: Float32Array;
  /** Per option entry: a, c. */
  readonly acf: Float32Array;
  readonly bf: Float32Array;
  readonly gth: Float64Array;
  readonly gs: Float64Array;
  readonly gdelta: Float64Array;
  readonly grho: Float64Array;
  readonly outGac: Float64Array;
  readonly outGb: Float64Array;
  readonly outScalars: Float64Array;
  /** Item blocks of the curvature's items pass (fixed by the bank, like `blocks`). */
  readonly itemBlocks: number;
  /** Items per item block (the last may have fewer): block b sums items [b itemsPerBlock, (b + 1) itemsPerBlock). */
  readonly itemsPerBlock: number;
  /** Tasks of the threaded reduction (`setReduce`, the pool's REDUCE task): item-gradient slices, then the per-item sums. */
  readonly reduceTasks: number;
  /** The curvature passes' inputs and cell sums (see curvatureSums). */
  readonly cv: {
    x: Float64Array;
    b: Float64Array;
    row: Float64Array;
    hl: Float64Array;
    hg: Float64Array;
    s0: Float64Array;
    s1: Float64Array;
    s2: Float64Array;
    u1: Float64Array;
    u0: Float64Array;
    hh: Float64Array;
    gb: Float64Array;
    /** With `setCurvatureCross(true)`: per row its LLM-globals sums (P x 2), per item its item-globals sums (2K x 2 at 4 io) and E (2). */
    hx: Float64Array;
    ig: Float64Array;
    eg: Float64Array;
    /** The SEs' item corrections (`setCurvatureCorrections`): per row B D^-1 B^T (P x P) and with itemZ B Z (P x 2). */
    cm: Float64Array;
    bz: Float64Array;
  };
  private readonly hdr: Int32Array;
  private readonly hdrF: Float32Array;
  private readonly q4: Float32Array;
  private readonly bank: ResponseBank;

  constructor(bank: ResponseBank, layout: LlmNrmLayout, variant: KernelVariant, options: KernelLayoutOptions = {}) {
    this.variant = variant;
    const J = layout.nModels;
    const I = layout.nItems;
    const kMax = layout.kMax;
    const sumK = layout.sumK;
    const C = bank.colItem.length;
    const width = bank.colOffsets[C]!;
    if (kMax > MAX_OPTIONS) throw new LlmNrmError('INVALID_OPTIONS', `the wasm kernel takes at most ${MAX_OPTIONS} options per item, got ${kMax}`);
    const G = Math.ceil(J / 4);
    const gpb = options.groupsPerBlock ?? Math.max(1, Math.ceil(G / TARGET_BLOCKS));
    if (!(Number.isInteger(gpb) && gpb >= 1)) throw new LlmNrmError('INVALID_OPTION', `groupsPerBlock must be a positive integer, got ${gpb}`);
    const nB = Math.ceil(G / gpb);
    const ipb = Math.max(1, Math.ceil(I / TARGET_BLOCKS));
    const nIB = Math.ceil(I / ipb);
    this.itemBlocks = nIB;
    this.itemsPerBlock = ipb;
    this.reduceTasks = REDUCE_SLICES + 1;
    const P = 2 + 2 * kMax;
    const sq = new Int32Array(I + 1);
    for (let i = 0; i < I; i++) {
      const K = bank.itemOffsets[i + 1]! - bank.itemOffsets[i]!;
      sq[i + 1] = sq[i]! + K * K;
    }
    this.groups = G;
    this.groupsPerBlock = gpb;
    this.blocks = nB;

    // Byte layout, every array 16-aligned.
    const mem = bumpAllocator(16);
    const alloc = mem.alloc;
    const p = {
      header: alloc(HEADER_SLOTS * 4),
      q4: alloc(G * width * 16),
      mask: alloc(G * C),
      colItem: alloc(C * 4),
      colOffsets: alloc((C + 1) * 4),
      itemOffsets: alloc((I + 1) * 4),
      colPos: alloc(width),
      th4: alloc(G * 16),
      s4: alloc(G * 16),
      dr4: alloc(G * kMax * 32),
      acf: alloc(sumK * 8),
      bf: alloc(I * 4),
      gth: alloc(G * 4 * 8),
      gs: alloc(G * 4 * 8),
      gdelta: alloc(G * 4 * kMax * 8),
      grho: alloc(G * 4 * kMax * 8),
      blockScalars: alloc(nB * 32),
      blockGb: alloc(nB * I * 8),
      blockGac: alloc(nB * sumK * 16),
      scratch: alloc(nB * SCRATCH_BYTES),
      outGac: alloc(sumK * 16),
      outGb: alloc(I * 8),
      outScalars: alloc(32),
      cvX: alloc(layout.size * 8),
      cvB: alloc(I * 8),
      cvHL: alloc(J * P * P * 8),
      cvHG: alloc(nB * 32),
      cvS0: alloc(sq[I]! * 8),
      cvS1: alloc(sq[I]! * 8),
      cvS2: alloc(sq[I]! * 8),
      cvSq: alloc((I + 1) * 4),
      cvU1: alloc(sumK * 8),
      cvU0: alloc(sumK * 8),
      cvHH: alloc(I * 8),
      cvGB: alloc(I * 8),
      cvIcolOff: alloc((I + 1) * 4),
      cvIcol: alloc(C * 4),
      cvRow: alloc(J * 32),
      cvScratch: alloc(Math.max(nB, nIB) * CURV_SCRATCH_BYTES),
      cvHX: alloc(J * 2 * P * 8),
      cvIG: alloc(4 * sumK * 8),
      cvEG: alloc(2 * I * 8),
      cvScratch4: alloc(Math.max(nB, nIB) * CURV4_SCRATCH_BYTES),
      cvCM: alloc(J * P * P * 8),
      cvBZ: alloc(J * 2 * P * 8),
    };
    const at = mem.end;
    this.bytes = at;
    const pages = Math.ceil(at / PAGE);
    if (pages > MAX_PAGES) {
      throw new LlmNrmError(
        'INVALID_OPTION',
        `bank too large for the wasm engine: needs ${(at / 2 ** 30).toFixed(2)} GiB of kernel memory (at most 4 GiB; ${J} LLMs x ${width} option entries)`,
      );
    }
    this.memory = variant === 'shared' ? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true }) : new WebAssembly.Memory({ initial: pages });
    const buf = this.memory.buffer;
    this.header = p.header;
    this.hdr = new Int32Array(buf, p.header, HEADER_SLOTS);
    this.hdrF = new Float32Array(buf, p.header, HEADER_SLOTS);
    const h = this.hdr;
    h[H.GROUPS] = G;
    h[H.C] = C;
    h[H.WIDTH] = width;
    h[H.KMAX] = kMax;
    h[H.FLAGS] = (layout.parts.sharpness ? 1 : 0) | (layout.parts.position ? 2 : 0) | (layout.parts.fallback ? 4 : 0);
    h[H.GROUPS_PER_BLOCK] = gpb;
    h[H.BLOCKS] = nB;
    h[H.ROWS] = J;
    h[H.ITEMS] = I;
    h[H.SUMK] = sumK;
    h[H.RED_SLICES] = REDUCE_SLICES;
    const slots: [number, number][] = [
      [H.Q4, p.q4],
      [H.MASK, p.mask],
      [H.COL_ITEM, p.colItem],
      [H.COL_OFFSETS, p.colOffsets],
      [H.ITEM_OFFSETS, p.itemOffsets],
      [H.COL_POS, p.colPos],
      [H.TH4, p.th4],
      [H.S4, p.s4],
      [H.DR4, p.dr4],
      [H.ACF, p.acf],
      [H.BF, p.bf],
      [H.GTH, p.gth],
      [H.GS, p.gs],
      [H.GDELTA, p.gdelta],
      [H.GRHO, p.grho],
      [H.BLOCK_SCALARS, p.blockScalars],
      [H.BLOCK_GB, p.blockGb],
      [H.BLOCK_GAC, p.blockGac],
      [H.SCRATCH, p.scratch],
      [H.OUT_GAC, p.outGac],
      [H.OUT_GB, p.outGb],
      [H.OUT_SCALARS, p.outScalars],
      [H.CV_X, p.cvX],
      [H.CV_B, p.cvB],
      [H.CV_HL, p.cvHL],
      [H.CV_HG, p.cvHG],
      [H.CV_S0, p.cvS0],
      [H.CV_S1, p.cvS1],
      [H.CV_S2, p.cvS2],
      [H.CV_SQ, p.cvSq],
      [H.CV_U1, p.cvU1],
      [H.CV_U0, p.cvU0],
      [H.CV_HH, p.cvHH],
      [H.CV_GB, p.cvGB],
      [H.CV_ICOL_OFF, p.cvIcolOff],
      [H.CV_ICOL, p.cvIcol],
      [H.CV_ROW, p.cvRow],
      [H.CV_SCRATCH, p.cvScratch],
      [H.CV_HX, p.cvHX],
      [H.CV_IG, p.cvIG],
      [H.CV_EG, p.cvEG],
      [H.CV_SCRATCH4, p.cvScratch4],
      [H.CV_CM, p.cvCM],
      [H.CV_BZ, p.cvBZ],
      [H.CV_ITEMS_PER_BLOCK, ipb],
      [H.L_THETA, layout.theta],
      [H.L_A, layout.a],
      [H.L_C, layout.c],
      [H.L_DELTA, layout.delta],
      [H.L_RHO, layout.rho],
      [H.L_W0, layout.w0],
      [H.L_KBAR, layout.kbar],
    ];
    for (const [slot, ptr] of slots) h[slot] = ptr;
    new Int32Array(buf, p.cvSq, I + 1).set(sq);
    // The columns of each item (rotations give an item several), in column order.
    const icolOff = new Int32Array(buf, p.cvIcolOff, I + 1);
    for (let col = 0; col < C; col++) icolOff[bank.colItem[col]! + 1]!++;
    for (let i = 0; i < I; i++) icolOff[i + 1]! += icolOff[i]!;
    const icol = new Int32Array(buf, p.cvIcol, C);
    const fillAt = Int32Array.from(icolOff.subarray(0, I));
    for (let col = 0; col < C; col++) icol[fillAt[bank.colItem[col]!]!++] = col;
    this.cv = {
      x: new Float64Array(buf, p.cvX, layout.size),
      b: new Float64Array(buf, p.cvB, I),
      row: new Float64Array(buf, p.cvRow, 4 * J),
      hl: new Float64Array(buf, p.cvHL, J * P * P),
      hg: new Float64Array(buf, p.cvHG, 4 * nB),
      s0: new Float64Array(buf, p.cvS0, sq[I]!),
      s1: new Float64Array(buf, p.cvS1, sq[I]!),
      s2: new Float64Array(buf, p.cvS2, sq[I]!),
      u1: new Float64Array(buf, p.cvU1, sumK),
      u0: new Float64Array(buf, p.cvU0, sumK),
      hh: new Float64Array(buf, p.cvHH, I),
      gb: new Float64Array(buf, p.cvGB, I),
      hx: new Float64Array(buf, p.cvHX, J * 2 * P),
      ig: new Float64Array(buf, p.cvIG, 4 * sumK),
      eg: new Float64Array(buf, p.cvEG, 2 * I),
      cm: new Float64Array(buf, p.cvCM, J * P * P),
      bz: new Float64Array(buf, p.cvBZ, J * 2 * P),
    };

    // Data: q interleaved by group, [group][entry][lane], zero where unobserved or past the last row;
    // mask[group][column] has bit `lane` set where that cell is observed.
    this.q4 = new Float32Array(buf, p.q4, G * width * 4);
    this.bank = bank;
    const mask = new Uint8Array(buf, p.mask, G * C);
    const { observed, colOffsets } = bank;
    for (let j = 0; j < J; j++) {
      const g = j >> 2;
      const lane = j & 3;
      for (let col = 0; col < C; col++) if (observed[j * C + col] !== 0) mask[g * C + col]! |= 1 << lane;
    }
    this.setTargets(bank.q);
    new Int32Array(buf, p.colItem, C).set(bank.colItem);
    new Int32Array(buf, p.colOffsets, C + 1).set(bank.colOffsets);
    new Int32Array(buf, p.itemOffsets, I + 1).set(bank.itemOffsets);
    const colPos = new Uint8Array(buf, p.colPos, width);
    if (bank.colPosition !== null) colPos.set(bank.colPosition);
    else for (let col = 0; col < C; col++) for (let k = colOffsets[col]!; k < colOffsets[col + 1]!; k++) colPos[k] = k - colOffsets[col]!;

    this.th4 = new Float32Array(buf, p.th4, G * 4);
    this.s4 = new Float32Array(buf, p.s4, G * 4);
    this.dr4 = new Float32Array(buf, p.dr4, G * kMax * 8);
    this.acf = new Float32Array(buf, p.acf, 2 * sumK);
    this.bf = new Float32Array(buf, p.bf, I);
    this.gth = new Float64Array(buf, p.gth, G * 4);
    this.gs = new Float64Array(buf, p.gs, G * 4);
    this.gdelta = new Float64Array(buf, p.gdelta, G * 4 * kMax);
    this.grho = new Float64Array(buf, p.grho, G * 4 * kMax);
    this.outGac = new Float64Array(buf, p.outGac, 2 * sumK);
    this.outGb = new Float64Array(buf, p.outGb, I);
    this.outScalars = new Float64Array(buf, p.outScalars, 4);
    this.s4.fill(1);
    const instance = new WebAssembly.Instance(kernelModule(variant), { env: { memory: this.memory } });
    this.exports = instance.exports as unknown as KernelExports;
    if (this.exports.scratchBytes() !== SCRATCH_BYTES)
      throw new Error(`engine-wasm: kernel scratch is ${this.exports.scratchBytes()} bytes, host assumed ${SCRATCH_BYTES}`);
    if (this.exports.curv4ScratchBytes() !== CURV4_SCRATCH_BYTES)
      throw new Error(`engine-wasm: f32 curvature scratch is ${this.exports.curv4ScratchBytes()} bytes, host assumed ${CURV4_SCRATCH_BYTES}`);
    if (this.exports.curvScratchBytes() !== CURV_SCRATCH_BYTES)
      throw new Error(`engine-wasm: curvature scratch is ${this.exports.curvScratchBytes()} bytes, host assumed ${CURV_SCRATCH_BYTES}`);
  }

  /**
   * The targets q (the bank's layout, `bank.q`) into the kernel's lanes: the constructor's data, and
   * a retarget (the objective's `retarget`: new targets on the same cells). The mask and the zero
   * lanes of unobserved cells stay as they are.
   */
  setTargets(q: Float32Array): void {
    if (q.length !== this.bank.q.length) throw new LlmNrmError('INVALID_OPTION', `retarget: q has ${q.length} entries, the bank ${this.bank.q.length}`);
    this.writeTargetRows(q, 0, this.bank.models.length);
  }

  /** q's rows (row firstRow at 0) into the lanes of LLM rows firstRow..firstRow + rows. */
  private writeTargetRows(q: Float32Array, firstRow: number, rows: number): void {
    const { observed, colOffsets } = this.bank;
    const C = this.bank.colItem.length;
    const width = colOffsets[C]!;
    const q4 = this.q4;
    for (let j = firstRow; j < firstRow + rows; j++) {
      const rowQ = (j - firstRow) * width;
      const base = (j >> 2) * width * 4 + (j & 3);
      for (let col = 0; col < C; col++) {
        if (observed[j * C + col] === 0) continue;
        const co = colOffsets[col]!;
        const K = colOffsets[col + 1]! - co;
        for (let k = 0; k < K; k++) q4[base + (co + k) * 4] = q[rowQ + co + k]!;
      }
    }
  }

  /** Whether the next loss passes write the model's own p into the observed lanes' targets (assembly/kernel.ts PREDICT_TARGETS) instead of the loss. */
  setPredictTargets(on: boolean): void {
    this.hdr[H.FLAGS] = on ? this.hdr[H.FLAGS]! | PREDICT_TARGETS : this.hdr[H.FLAGS]! & ~PREDICT_TARGETS;
  }

  /** The curvature's rows pass reads every `stride`-th column of each row (1: every cell). */
  setCurvatureRowStride(stride: number): void {
    this.hdr[H.CV_ROW_STRIDE] = Math.max(1, Math.floor(stride));
  }

  /** The rows pass's column stride (see setCurvatureRowStride). */
  get curvatureRowStride(): number {
    return this.hdr[H.CV_ROW_STRIDE]!;
  }

  /** Which of the next curvature passes run in f32 lanes (assembly/curvature4.ts) on the loss kernel's f32 parameters. */
  setCurvatureSimd(rows: boolean, items: boolean): void {
    this.hdr[H.CV_SIMD] = (rows ? 1 : 0) | (items ? 2 : 0);
  }

  /**
   * Whether the next rows pass computes the SEs' item corrections (curvCorrRows, into cv.cm and
   * cv.bz), with or without itemZ, and with `rows` the rows pass's own sums beside them (cv.hl, cv.hg
   * and under `setCurvatureCross` cv.hx, as a stride-1 rows pass).
   */
  setCurvatureCorrections(on: boolean, withZ: boolean, rows = false): void {
    this.hdr[H.CV_CORR] = on ? 1 | (withZ ? 2 : 0) | (rows ? 4 : 0) : 0;
  }

  /** Whether the next curvature passes also sum the SEs' cross blocks (cv.hx, cv.ig, cv.eg; gate layouts only). */
  setCurvatureCross(on: boolean): void {
    this.hdr[H.CV_CROSS] = on ? 1 : 0;
  }

  /** Set the row range and gate scalars of the next pass; returns the blocks it covers [b0, b1). */
  setPass(rowStart: number, rowEnd: number, w0: number, kappa: number): [number, number] {
    const h = this.hdr;
    h[H.ROW_START] = rowStart;
    h[H.ROW_END] = rowEnd;
    this.hdrF[H.W0] = w0;
    this.hdrF[H.KAPPA] = kappa;
    if (rowEnd <= rowStart) return [0, 0];
    const rowsPerBlock = 4 * this.groupsPerBlock;
    return [Math.floor(rowStart / rowsPerBlock), Math.ceil(rowEnd / rowsPerBlock)];
  }

  /**
   * Prepare the threaded reduction of blocks [b0, b1) (the pool's REDUCE task over `reduceTasks`
   * tasks; the same sums in the same order as `reduce`). Returns false where there is nothing to
   * add: the outputs are then cleared here.
   */
  setReduce(b0: number, b1: number): boolean {
    if (b1 <= b0) {
      this.reduce(b0, b1);
      return false;
    }
    this.hdr[H.RED_B0] = b0;
    this.hdr[H.RED_B1] = b1;
    return true;
  }

  /** Sum the block partials of [b0, b1) in block order into the outputs. */
  reduce(b0: number, b1: number): void {
    if (b1 <= b0) {
      this.outGac.fill(0);
      this.outGb.fill(0);
      this.outScalars.fill(0);
      return;
    }
    this.exports.reduce(this.header, b0, b1, 0, this.outGac.length / 2);
  }
}
