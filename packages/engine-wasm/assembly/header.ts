// The header's i32 slots (offsets in 4-byte slots at `h`), laid out by the host
// (src/internal/kernelHost.ts, which keeps the same numbers) and read by the loss kernel
// (kernel.ts, H_*) and the curvature's scalar and f32x4 passes (curvature.ts, curvature4.ts; CV_*
// for their inputs and sums, L_* for core's layout offsets). One definition for every pass.

// The loss pass (and the cell data every pass shares).
export const H_GROUPS: i32 = 0;
export const H_C: i32 = 1;
export const H_WIDTH: i32 = 2;
export const H_KMAX: i32 = 3;
export const H_FLAGS: i32 = 4;
export const H_GROUPS_PER_BLOCK: i32 = 5;
// 6: block count, 9: row count (read by the host only).
export const H_ROW_START: i32 = 7;
export const H_ROW_END: i32 = 8;
export const H_ROWS: i32 = 9;
export const H_Q4: i32 = 10;
export const H_MASK: i32 = 11;
export const H_COL_ITEM: i32 = 12;
export const H_COL_OFFSETS: i32 = 13;
export const H_ITEM_OFFSETS: i32 = 14;
export const H_COL_POS: i32 = 15;
export const H_TH4: i32 = 16;
export const H_S4: i32 = 17;
/** Per group and position: delta lanes, then rho lanes (32 bytes). */
export const H_DR4: i32 = 18;
// Slots 19 and 21 are unused.
/** Per option entry: a, c (f32 pairs). */
export const H_ACF: i32 = 20;
export const H_BF: i32 = 22;
export const H_GTH: i32 = 23;
export const H_GS: i32 = 24;
export const H_GDELTA: i32 = 25;
export const H_GRHO: i32 = 26;
export const H_BLOCK_SCALARS: i32 = 27;
export const H_BLOCK_GB: i32 = 28;
export const H_BLOCK_GAC: i32 = 29;
export const H_SCRATCH: i32 = 30;
export const H_ITEMS: i32 = 31;
export const H_SUMK: i32 = 32;
export const H_W0: i32 = 33;
export const H_KAPPA: i32 = 34;
export const H_OUT_GAC: i32 = 35;
export const H_OUT_GB: i32 = 36;
export const H_OUT_SCALARS: i32 = 37;
/** The parallel reduction (kernel.ts reduceSlice): the blocks [b0, b1) to add, and the item-gradient slices it is cut into. */
export const H_RED_B0: i32 = 72;
export const H_RED_B1: i32 = 73;
export const H_RED_SLICES: i32 = 74;

// The curvature passes.
/** i32: the rows pass reads every stride-th column of a row (1: all), its sums scaled by stride. */
export const CV_ROW_STRIDE: i32 = 39;
/** f64 parameters x (core's layout). */
export const CV_X: i32 = 40;
/** f64 per item: the gate difficulty b_i. */
export const CV_B: i32 = 41;
/** f64 per row: P x P sums. */
export const CV_HL: i32 = 42;
/** f64 per row block: 4 partial sums of the globals' block. */
export const CV_HG: i32 = 43;
export const CV_S0: i32 = 44;
export const CV_S1: i32 = 45;
export const CV_S2: i32 = 46;
/** i32 per item + 1: offsets of the K x K squares. */
export const CV_SQ: i32 = 47;
export const CV_U1: i32 = 48;
export const CV_U0: i32 = 49;
export const CV_HH: i32 = 50;
export const CV_GB: i32 = 51;
/** i32 per item + 1, then i32 per column: the columns of each item. */
export const CV_ICOL_OFF: i32 = 52;
export const CV_ICOL: i32 = 53;
export const CV_ITEMS_PER_BLOCK: i32 = 54;
/** f64 per row: theta, s, ds/dsbar, 0. */
export const CV_ROW: i32 = 55;
export const CV_SCRATCH: i32 = 56;
/**
 * i32: nonzero: also the SEs' cross sums (core's llmNrmCurvature with `cross`): per row the
 * LLM-globals block (CV_HX, P x 2), per item the item-globals sums (CV_IG: per option entry a_l
 * then c_l by w0, kbar, 2K x 2 an item at 4 io) and E's (CV_EG, 2 per item). Gate only.
 */
export const CV_CROSS: i32 = 64;
export const CV_HX: i32 = 65;
export const CV_IG: i32 = 66;
export const CV_EG: i32 = 67;
/** i32: bit 1: the preconditioner's rows pass runs in f32 lanes (curvature4.ts); bit 2: its items pass. */
export const CV_SIMD: i32 = 68;
/** Per-block scratch of these passes (CURV4_SCRATCH bytes a block). */
export const CV_SCRATCH4: i32 = 69;
/** i32: nonzero: the rows pass computes the SEs' item corrections instead (curvCorrRows; bit 2: with itemZ; bit 4: the rows pass's own sums too). */
export const CV_CORR: i32 = 70;
/** The item corrections' sums (curvCorrRows): per row its P x P B D^-1 B^T, and with itemZ its P x 2 B Z. */
export const CV_CM: i32 = 71;
export const CV_BZ: i32 = 75;

// Layout offsets (i32): theta, sbar, a, c, delta, rho, w0, kbar.
export const L_A: i32 = 58;
export const L_C: i32 = 59;
export const L_DELTA: i32 = 60;
export const L_RHO: i32 = 61;
export const L_W0: i32 = 62;
export const L_KBAR: i32 = 63;
