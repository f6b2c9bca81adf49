// core's binary cell pass (BinaryKernel, core/src/model/binary/kernel.ts) on the wasm binary
// kernel (assembly/binary.ts): the cells are laid out once in a plain memory of their own, and the
// kernel's input and output arrays are Float64Array views on it, so the objective writes the per-item
// values and thetas straight into the module's memory and reads the sums back without copies. The
// memory is sized once and never grows, so the views stay valid. f64 throughout, exp/log/log1p
// imported from JavaScript's Math: the same bits as core's tsBinaryKernel (binaryKernel.test.ts).
import type { BinaryCells, BinaryKernel } from '@llm-nrm/core/engine';
import { binaryKernelModule } from './module.js';
import { PAGE, bumpAllocator } from './memoryLayout.js';

/** Header slots (i32) shared with assembly/binary.ts. */
const H = {
  J: 0,
  I: 1,
  PL: 2,
  TH: 3,
  A: 4,
  B: 5,
  LO: 6,
  RANGE: 7,
  SG: 8,
  SS: 9,
  GA: 10,
  GB: 11,
  GLO: 12,
  GHI: 13,
  GTH: 14,
  ROW_START: 15,
  CELL_ITEM: 16,
  CELL_Y: 17,
  COL_START: 18,
  CM_ROW: 19,
  CM_POS: 20,
  CM_Y: 21,
  TERM: 22,
  GT: 23,
  Z: 24,
  EZ: 25,
  SGB: 26,
  PC: 27,
  T: 28,
  RM_TO_CM: 29,
} as const;
const HEADER_SLOTS = 32;

interface BinaryKernelExports {
  HEADER_SLOTS: WebAssembly.Global;
  itemMajorSimd(h: number, tp: number): number;
  phaseZ(h: number): void;
  phaseP(h: number): void;
  phaseG(h: number, tp: number): number;
  rowMajorPass(h: number, r0: number, r1: number, tp: number): number;
}

/**
 * How full passes of banks with one column per item run (rotated banks and row scopes always take
 * the scalar row pass, core's bits):
 * - 'phased' (default): core's bits, in stages over all cells (assembly/binary.ts phaseZ, phaseP,
 *   phaseG, with Math.exp and Math.log/log1p over whole buffers here between them);
 * - 'simd': the f64x2 pass (itemMajorSimd: its own exp and log, two lanes per item sum), within
 *   about 1e-13 of core's bits but not equal to them, so fits may end in other basins.
 */
export type BinaryPass = 'phased' | 'simd';

export interface WasmBinaryKernelOptions {
  pass?: BinaryPass;
}

/** The binary cell pass on the wasm kernel (with `options` bound, a core `BinaryKernelFactory`). */
export function wasmBinaryKernel(cells: BinaryCells, options: WasmBinaryKernelOptions = {}): BinaryKernel {
  const module = binaryKernelModule();
  const mode = options.pass ?? 'phased';
  const J = cells.nModels;
  const I = cells.nItems;
  const n = cells.cellItem.length;
  const m = cells.cmRow.length;
  // Byte offsets, each 8-aligned: header, then f64, i32 and u8 arrays.
  const mem = bumpAllocator(8);
  const take = mem.alloc;
  const header = take(HEADER_SLOTS * 4);
  const off: Record<keyof typeof H, number> = {
    J: 0,
    I: 0,
    PL: 0,
    TH: take(J * 8),
    A: take(I * 8),
    B: take(I * 8),
    LO: take(I * 8),
    RANGE: take(I * 8),
    SG: take(I * 8),
    SS: take(I * 8),
    GA: take(I * 8),
    GB: take(I * 8),
    GLO: take(I * 8),
    GHI: take(I * 8),
    GTH: take(J * 8),
    TERM: take(m === 0 ? 0 : n * 8),
    Z: take(m * 8),
    EZ: take(m * 8),
    SGB: take(m * 8),
    PC: take(m * 8),
    T: take(m * 8),
    RM_TO_CM: take(m * 4),
    GT: take(J * 8),
    ROW_START: take((J + 1) * 4),
    CELL_ITEM: take(n * 4),
    COL_START: take((I + 1) * 4),
    CM_ROW: take(m * 4),
    CM_POS: take(m * 4),
    CELL_Y: take(n),
    CM_Y: take(m),
  };
  const memory = new WebAssembly.Memory({ initial: Math.ceil(mem.end / PAGE) });
  const instance = new WebAssembly.Instance(module, {
    env: { memory },
    Math: { exp: Math.exp, log: Math.log, log1p: Math.log1p },
  });
  const k = instance.exports as unknown as BinaryKernelExports;
  if (k.HEADER_SLOTS.value !== HEADER_SLOTS) throw new Error(`binary kernel header: module has ${k.HEADER_SLOTS.value} slots, host ${HEADER_SLOTS}`);
  const buf = memory.buffer;
  const hv = new Int32Array(buf, header, HEADER_SLOTS);
  for (const [name, slot] of Object.entries(H)) hv[slot] = off[name as keyof typeof H];
  hv[H.J] = J;
  hv[H.I] = I;
  hv[H.PL] = cells.pl;
  new Int32Array(buf, off.ROW_START, J + 1).set(cells.rowStart);
  new Int32Array(buf, off.CELL_ITEM, n).set(cells.cellItem);
  new Uint8Array(buf, off.CELL_Y, n).set(cells.cellY);
  new Int32Array(buf, off.COL_START, I + 1).set(cells.colStart);
  new Int32Array(buf, off.CM_ROW, m).set(cells.cmRow);
  new Int32Array(buf, off.CM_POS, m).set(cells.cmPos);
  new Uint8Array(buf, off.CM_Y, m).set(cells.cmY);
  const f64 = (at: number, len: number): Float64Array => new Float64Array(buf, at, len);
  const rmToCm = new Int32Array(buf, off.RM_TO_CM, m);
  for (let k = 0; k < m; k++) rmToCm[cells.cmPos[k]!] = k;
  const Z = f64(off.Z, m);
  const EZ = f64(off.EZ, m);
  const PC = f64(off.PC, m);
  const T = f64(off.T, m);
  const cmY = cells.cmY;
  // The Math loops run on plain arrays, the buffers copied in and out (memcpy): V8's loops over
  // views on a wasm memory were measured about 1.5x slower (the same values either way).
  const zJs = new Float64Array(m);
  const pcJs = new Float64Array(m);
  const outJs = new Float64Array(m);
  /** The phased pass (see BinaryPass): JavaScript's own exp and logs between the wasm stages. */
  const phased = (tp: number): number => {
    k.phaseZ(header);
    zJs.set(Z);
    // The TypeScript pass's argument: exp(-z) for z >= 0, exp(z) below.
    for (let e = 0; e < m; e++) outJs[e] = Math.exp(-Math.abs(zJs[e]!));
    EZ.set(outJs);
    k.phaseP(header);
    pcJs.set(PC);
    for (let e = 0; e < m; e++) outJs[e] = cmY[e] === 1 ? Math.log(pcJs[e]!) : Math.log1p(-pcJs[e]!);
    T.set(outJs);
    return k.phaseG(header, tp);
  };
  const full = mode === 'simd' ? (tp: number) => k.itemMajorSimd(header, tp) : phased;
  return {
    a: f64(off.A, I),
    beta: f64(off.B, I),
    lo: f64(off.LO, I),
    range: f64(off.RANGE, I),
    sg: f64(off.SG, I),
    ss: f64(off.SS, I),
    theta: f64(off.TH, J),
    gA: f64(off.GA, I),
    gB: f64(off.GB, I),
    gLo: f64(off.GLO, I),
    gHi: f64(off.GHI, I),
    gTheta: f64(off.GTH, J),
    pass: (r0, r1, tp) => (cells.itemMajor && r0 === 0 && r1 === J ? full(tp) : k.rowMajorPass(header, r0, r1, tp)),
  };
}
