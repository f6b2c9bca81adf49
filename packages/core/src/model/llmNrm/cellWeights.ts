import type { ResponseBank } from '../../data/bank.js';
import type { LlmNrmLayout } from '../layout.js';

/**
 * One cell's forward pass (LLM j, column col), shared by the curvature (curvature.ts) and the SEs'
 * item corrections (itemCorrection.ts), which must see the same p to the bit. Per option k: its
 * displayed position pos[k], z_k = a_ik theta_j + c_ik + delta_j,pos (zd), and the softmax's
 * unnormalised weights e^(v_k - max v) of v_k = (1 - G) s z_k + G rho_j,pos (p; paper.md, the
 * LLM-NRM response model). Returns their sum; the cell's target mass Q = sum_k q_k goes to mass[0].
 * co, io, qo: the column's, item's and cell's offsets; dOff, rOff: LLM j's delta and rho.
 */
export function cellWeights(
  L: LlmNrmLayout,
  x: Float64Array,
  q: Float32Array,
  colPosition: ResponseBank['colPosition'],
  co: number,
  io: number,
  qo: number,
  K: number,
  th: number,
  s: number,
  G: number,
  dOff: number,
  rOff: number,
  pos: Int32Array,
  zd: Float64Array,
  p: Float64Array,
  mass: Float64Array,
): number {
  const usePos = L.parts.position;
  const useFb = L.parts.fallback;
  const omg = 1 - G;
  let m = -Infinity;
  let Q = 0;
  for (let k = 0; k < K; k++) {
    const ps = colPosition === null ? k : colPosition[co + k]!;
    pos[k] = ps;
    const z = x[L.a + io + k]! * th + x[L.c + io + k]! + (usePos ? x[dOff + ps]! : 0);
    zd[k] = z;
    const v = useFb ? omg * s * z + G * x[rOff + ps]! : s * z;
    p[k] = v;
    if (v > m) m = v;
    Q += q[qo + k]!;
  }
  let sum = 0;
  for (let k = 0; k < K; k++) {
    p[k] = Math.exp(p[k]! - m);
    sum += p[k]!;
  }
  mass[0] = Q;
  return sum;
}
