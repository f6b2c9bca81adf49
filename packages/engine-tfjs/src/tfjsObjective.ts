import {
  LlmNrmError,
  getFamily,
  optionLevelLayout,
  type BinaryLayout,
  type EvalScope,
  type Layout,
  type LlmNrmLayout,
  type LlmNrmParts,
  type ModelFamily,
  type ModelName,
  type Objective,
  type Priors,
  type ResponseBank,
} from '@llm-nrm/core';
import { priorPrecisions, DIFFICULTY_BOUND, DIFFICULTY_EPS, correctness, freeMask } from '@llm-nrm/core/engine';
import type { Scalar, Tensor, Tensor1D, Tensor2D } from '@tensorflow/tfjs-core';
import { loadTfjs, type LoadedTfjs, type Tf, type TfjsBackendName } from './loadTfjs.js';

/**
 * Core's `Objective` computed by tfjs: the same MAP loss as `llmNrmObjective` / `binaryObjective`
 * (term by term, priors included), with the gradient from tfjs autograd (`tf.valueAndGrad`) instead
 * of a hand-written backward pass (gather's own rule aside on the 'cpu' backend: `gatherGradient`). tfjs computes in float32 on every backend it has (cpu, tensorflow,
 * CUDA); parameters are rounded to float32 on the way in and the gradient widened on the way out.
 */
export interface TfjsObjective extends Objective {
  /** The tfjs backend that runs it (`tf.getBackend()`: 'cpu', 'tensorflow', ...). */
  readonly tfBackend: string;
  /** Free the index and data tensors it holds. The objective is unusable afterwards. */
  dispose(): void;
}

/** Logit given to option slots that an item does not have (padding to K_max): exp underflows to 0. */
const MASKED = -1e9;

function checkFinite(loss: number): number {
  if (!Number.isFinite(loss)) {
    throw new LlmNrmError('NON_FINITE', `objective became ${loss} (tfjs engine); the fit diverged or the input is degenerate`);
  }
  return loss;
}

/** Run `loss` under autograd in one tidy scope; write the gradient (0 where not free) into g. */
function evaluate(tf: Tf, loss: (x: Tensor1D) => Scalar, x: Float64Array, g: Float64Array, free: Uint8Array): number {
  if (g.length !== x.length) throw new LlmNrmError('INVALID_OPTION', `gradient has length ${g.length}, parameters ${x.length}`);
  const out = tf.tidy(() => {
    const xT = tf.tensor1d(Float32Array.from(x), 'float32');
    const { value, grad } = tf.valueAndGrad(loss)(xT);
    return { value, grad };
  });
  let f: number;
  try {
    f = out.value.dataSync()[0]!;
    g.set(out.grad.dataSync());
  } finally {
    out.value.dispose();
    out.grad.dispose();
  }
  for (let t = 0; t < g.length; t++) if (free[t] === 0) g[t] = 0;
  return checkFinite(f);
}

/** How `tf.gather` is differentiated: tfjs's registered rule, or a scatter-add (see `gatherOf`). */
export type GatherGradient = 'auto' | 'native' | 'scatter';

export interface TfjsObjectiveOptions {
  /**
   * 'native': tfjs's own gradient of gather (UnsortedSegmentSum); 'scatter': the same gradient as a
   * linear-time `tf.scatterND` sum; 'auto' (default): 'scatter' on the pure-JS 'cpu' backend, whose
   * UnsortedSegmentSum kernel loops over every segment for every index (quadratic: 3.4 s against
   * 25 ms for 20,000 indices into 2,000 parameters), 'native' on the others.
   */
  gatherGradient?: GatherGradient;
}

type Gather = (params: Tensor1D, indices: Tensor) => Tensor;

/**
 * gather(params, indices) whose gradient is the scatter-add of dy onto params (d params_t = sum of
 * dy over the positions that read t) when `scatter`; every other gradient stays tfjs autograd.
 */
function gatherOf(tf: Tf, mode: GatherGradient): Gather {
  const scatter = mode === 'scatter' || (mode === 'auto' && tf.getBackend() === 'cpu');
  if (!scatter) return (params, indices) => tf.gather(params, indices);
  const op = tf.customGrad(((params: Tensor1D, indices: Tensor, save: (ts: Tensor[]) => void) => {
    // Save the indices: a tensor only captured by gradFunc is disposed when the forward pass ends.
    save([indices]);
    return {
      value: tf.gather(params, indices),
      gradFunc: (dy: Tensor, saved: Tensor[]) => {
        const idx = saved[0]!;
        return [tf.scatterND(tf.reshape(idx, [idx.size, 1]), tf.reshape(dy, [idx.size]), params.shape), tf.zerosLike(idx)];
      },
    };
  }) as never) as unknown as Gather;
  return op;
}

function rowRange(scope: EvalScope, J: number): [number, number] {
  const r0 = scope.rowStart ?? 0;
  const r1 = scope.rowEnd ?? J;
  if (!(Number.isInteger(r0) && Number.isInteger(r1) && r0 >= 0 && r1 <= J && r0 <= r1)) {
    throw new LlmNrmError('INVALID_OPTION', `invalid row range: ${r0}..${r1} (models: ${J})`);
  }
  return [r0, r1];
}

/** 0.5 lam sum (t - centre)^2, or null when lam is 0 or t is empty. */
function ridge(tf: Tf, t: Tensor, lam: number, centre = 0): Scalar | null {
  if (lam === 0 || t.size === 0) return null;
  const d = centre === 0 ? t : tf.sub(t, centre);
  return tf.mul(0.5 * lam, tf.sum(tf.square(d))) as Scalar;
}

function total(tf: Tf, terms: (Scalar | null)[]): Scalar {
  const kept = terms.filter((t): t is Scalar => t !== null);
  return kept.length === 0 ? tf.scalar(0) : (tf.addN(kept) as Scalar);
}

/**
 * LLM-NRM (and NRM: every part off) on tfjs, the loss of core's `llmNrmObjective`:
 *
 *   L = sum_{observed j,c} [Q lse_k(v) - sum_k q_k v_k] + 1/2 sum_j theta_j^2
 *       + 1/2 lamS sum_j (log softplus(sbar_j))^2 + 1/2 lamLlm sum_j [|delta_j|^2 + |rho_j|^2]   (switched-on parts)
 *       + 1/2 lamItem (|a|^2 + |c|^2)                                              (scope.itemPrior)
 *       + 1/2 lamGate [(w0 - w0Centre)^2 + (kbar - kbarCentre)^2]              (scope.itemPrior, fallback on)
 *   v_k = (1 - G) s (a_k theta + c_k + delta_pos(k)) + G rho_pos(k),  G = sigmoid(w0 - kappa (theta - b_i))
 *
 * with b_i the guarded gate difficulty of difficulty.ts. Cells are padded to K_max: missing slots get
 * logit -1e9 and q = 0, so they carry neither mass nor gradient.
 */
export function tfjsLlmNrmObjective(
  bank: ResponseBank,
  layout: LlmNrmLayout,
  priors: Priors | undefined,
  tf: Tf,
  options: TfjsObjectiveOptions = {},
): TfjsObjective {
  const gather = gatherOf(tf, options.gatherGradient ?? 'auto');
  const free = freeMask(layout);
  const { item: lamItem, llm: lamLlm, sharpness: lamS, gate: lamGate, w0Centre, kbarCentre } = priorPrecisions(priors);
  const { nModels: J, nItems: I, kMax: Kmax, sumK } = layout;
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;

  // Observed cells in row-major order, so a row range is a contiguous slice.
  const rowStart = new Int32Array(J + 1);
  for (let j = 0; j < J; j++) {
    let n = 0;
    for (let col = 0; col < nC; col++) n += bank.observed[j * nC + col]!;
    rowStart[j + 1] = rowStart[j]! + n;
  }
  const N = rowStart[J]!;
  const cellJ = new Int32Array(N);
  const cellI = new Int32Array(N);
  const slotItem = new Int32Array(N * Kmax); // into a, c
  const slotPos = new Int32Array(N * Kmax); // into delta, rho: j * Kmax + displayed position
  const qPad = new Float32Array(N * Kmax);
  const mask = new Float32Array(N * Kmax);
  const bias = new Float32Array(N * Kmax).fill(MASKED);
  const qSum = new Float32Array(N);
  let n = 0;
  for (let j = 0; j < J; j++) {
    for (let col = 0; col < nC; col++) {
      if (bank.observed[j * nC + col] === 0) continue;
      const i = bank.colItem[col]!;
      const io = bank.itemOffsets[i]!;
      const co = bank.colOffsets[col]!;
      const K = bank.colOffsets[col + 1]! - co;
      cellJ[n] = j;
      cellI[n] = i;
      let Q = 0;
      for (let k = 0; k < K; k++) {
        const s = n * Kmax + k;
        slotItem[s] = io + k;
        slotPos[s] = j * Kmax + (bank.colPosition === null ? k : bank.colPosition[co + k]!);
        const qk = bank.q[j * width + co + k]!;
        qPad[s] = qk;
        Q += qk;
        mask[s] = 1;
        bias[s] = 0;
      }
      qSum[n] = Q;
      n++;
    }
  }
  // Per item (gate difficulty): option slots, the distractor mask and the key's flat index.
  const itemSlot = new Int32Array(I * Kmax);
  const dMask = new Float32Array(I * Kmax);
  const dBias = new Float32Array(I * Kmax).fill(MASKED);
  const keyFlat = new Int32Array(I);
  for (let i = 0; i < I; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    keyFlat[i] = io + g;
    for (let k = 0; k < K; k++) {
      itemSlot[i * Kmax + k] = io + k;
      if (k !== g) {
        dMask[i * Kmax + k] = 1;
        dBias[i * Kmax + k] = 0;
      }
    }
  }

  const T = {
    cellJ: tf.tensor1d(cellJ, 'int32'),
    cellI: tf.tensor1d(cellI, 'int32'),
    slotItem: tf.tensor2d(slotItem, [N, Kmax], 'int32'),
    slotPos: tf.tensor2d(slotPos, [N, Kmax], 'int32'),
    q: tf.tensor2d(qPad, [N, Kmax]),
    mask: tf.tensor2d(mask, [N, Kmax]),
    bias: tf.tensor2d(bias, [N, Kmax]),
    qSum: tf.tensor1d(qSum),
    itemSlot: tf.tensor1d(itemSlot, 'int32'),
    dMask: tf.tensor2d(dMask, [I, Kmax]),
    dBias: tf.tensor2d(dBias, [I, Kmax]),
    keyFlat: tf.tensor1d(keyFlat, 'int32'),
  };
  let disposed = false;

  /** The guarded gate difficulty b_i (difficulty.ts), as tfjs ops over a and c. */
  function difficulty(a: Tensor1D, c: Tensor1D): Tensor1D {
    const aI = tf.reshape(gather(a, T.itemSlot), [I, Kmax]) as Tensor2D;
    const cI = tf.reshape(gather(c, T.itemSlot), [I, Kmax]) as Tensor2D;
    const cd = tf.add(tf.mul(cI, T.dMask), T.dBias); // distractor logits; -1e9 at the key and padding
    const lse = tf.logSumExp(cd, 1); // log sum_{k != g} exp(c_k)
    const w = tf.exp(tf.sub(cd, tf.expandDims(lse, 1))); // distractor softmax at theta = 0
    const abar = tf.sum(tf.mul(w, aI), 1);
    const N_ = tf.sub(lse, gather(c, T.keyFlat));
    const D = tf.sub(gather(a, T.keyFlat), abar);
    // raw = N D / (D^2 + EPS^2); b = BOUND tanh(raw / BOUND).
    const raw = tf.div(tf.mul(N_, D), tf.add(tf.square(D), DIFFICULTY_EPS * DIFFICULTY_EPS));
    return tf.mul(DIFFICULTY_BOUND, tf.tanh(tf.div(raw, DIFFICULTY_BOUND))) as Tensor1D;
  }

  function lossOf(x: Tensor1D, r0: number, r1: number, itemPrior: boolean, thetaPrior: boolean): Scalar {
    const seg = (off: number, len: number): Tensor1D => tf.slice(x, [off], [len]);
    const theta = seg(layout.theta, J);
    const a = seg(layout.a, sumK);
    const c = seg(layout.c, sumK);
    const delta = seg(layout.delta, J * Kmax);
    const rho = seg(layout.rho, J * Kmax);
    const sbar = seg(layout.sbar, J);
    const c0 = rowStart[r0]!;
    const nCells = rowStart[r1]! - c0;
    const terms: (Scalar | null)[] = [];
    if (nCells > 0) {
      const rows1 = <R extends Tensor>(t: R): R => (nCells === N ? t : (tf.slice(t, [c0], [nCells]) as R));
      const rows2 = <R extends Tensor>(t: R): R => (nCells === N ? t : (tf.slice(t, [c0, 0], [nCells, Kmax]) as R));
      const cj = rows1(T.cellJ);
      const th = gather(theta, cj);
      const si = rows2(T.slotItem);
      const sp = rows2(T.slotPos);
      // z = a theta + c (+ delta at the displayed position); u = s z; v = (1 - G) u + G rho.
      let z: Tensor = tf.add(tf.mul(gather(a, si), tf.expandDims(th, 1)), gather(c, si));
      if (usePos) z = tf.add(z, gather(delta, sp));
      let v: Tensor = useS ? tf.mul(z, tf.expandDims(tf.softplus(gather(sbar, cj)), 1)) : z;
      if (useFb) {
        const b = gather(difficulty(a, c), rows1(T.cellI));
        const kappa = tf.softplus(seg(layout.kbar, 1));
        const eta = tf.sub(seg(layout.w0, 1), tf.mul(kappa, tf.sub(th, b)));
        const G = tf.expandDims(tf.sigmoid(eta), 1);
        v = tf.add(tf.mul(tf.sub(1, G), v), tf.mul(G, gather(rho, sp)));
      }
      const vm = tf.add(tf.mul(v, rows2(T.mask)), rows2(T.bias));
      // sum_k -q_k log p_k = Q lse(v) - sum_k q_k v_k  (Q = sum_k q_k, as the fused kernel).
      terms.push(tf.sub(tf.sum(tf.mul(rows1(T.qSum), tf.logSumExp(vm, 1))), tf.sum(tf.mul(rows2(T.q), vm))) as Scalar);
    }
    const nr = r1 - r0;
    if (thetaPrior) terms.push(ridge(tf, tf.slice(theta, [r0], [nr]), 1));
    if (useS) terms.push(ridge(tf, tf.log(tf.softplus(tf.slice(sbar, [r0], [nr]))), lamS));
    if (usePos) terms.push(ridge(tf, tf.slice(delta, [r0 * Kmax], [nr * Kmax]), lamLlm));
    if (useFb) terms.push(ridge(tf, tf.slice(rho, [r0 * Kmax], [nr * Kmax]), lamLlm));
    if (itemPrior) terms.push(ridge(tf, a, lamItem), ridge(tf, c, lamItem));
    // The gate globals' priors (core's finishLlmNrmPass: fleet parameters, with the items').
    if (itemPrior && useFb) terms.push(ridge(tf, seg(layout.w0, 1), lamGate, w0Centre), ridge(tf, seg(layout.kbar, 1), lamGate, kbarCentre));
    return total(tf, terms);
  }

  return {
    layout,
    free,
    tfBackend: tf.getBackend(),
    lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
      if (disposed) throw new LlmNrmError('INVALID_OPTION', 'tfjs objective used after dispose()');
      const [r0, r1] = rowRange(scope, J);
      return evaluate(tf, (xT) => lossOf(xT, r0, r1, scope.itemPrior !== false, scope.thetaPrior !== false), x, g, free);
    },
    dispose(): void {
      if (disposed) return;
      disposed = true;
      for (const t of Object.values(T)) t.dispose();
    },
  };
}

/**
 * Binary 1PL-4PL on correctness on tfjs, the loss of core's `binaryObjective`:
 *
 *   L = -sum_{observed} [y log P + (1 - y) log(1 - P)] + 1/2 sum_j theta_j^2 + item ridge (scope.itemPrior),
 *   P = c_i + (d_i - c_i) sigmoid(a_i theta + beta_i),  c_i = sigmoid(guess_i), d_i = 1 - sigmoid(slip_i),
 *
 * the ridge being 1/2 lamItem [(a_i - 1)^2 (2PL+) + beta_i^2 + guess_i^2 (3PL+) + slip_i^2 (4PL)].
 * log P and log(1 - P) are formed without cancellation (log-sigmoid for 1PL/2PL; 1 - P as
 * sigmoid(slip) + (d - c) sigmoid(-eta) for 3PL/4PL), and correct and wrong cells are kept apart
 * so that neither branch is evaluated where it is infinite.
 * `y` is J x C with 255 where unobserved (core's `correctness`).
 */
export function tfjsBinaryObjective(
  bank: ResponseBank,
  layout: BinaryLayout,
  y: Uint8Array,
  priors: Priors | undefined,
  tf: Tf,
  options: TfjsObjectiveOptions = {},
): TfjsObjective {
  const gather = gatherOf(tf, options.gatherGradient ?? 'auto');
  const free = freeMask(layout);
  const lamItem = priorPrecisions(priors).item;
  const { nModels: J, nItems: I, pl } = layout;
  const nC = bank.colItem.length;
  if (y.length !== J * nC) throw new LlmNrmError('INVALID_OPTION', `correctness has ${y.length} cells, bank has ${J * nC}`);

  /** Cells with y === want, row-major, with per-row starts. */
  function group(want: 0 | 1): { rowStart: Int32Array; j: Tensor1D; i: Tensor1D } {
    const rowStart = new Int32Array(J + 1);
    const js: number[] = [];
    const is: number[] = [];
    for (let j = 0; j < J; j++) {
      for (let col = 0; col < nC; col++) {
        if (y[j * nC + col] !== want) continue;
        js.push(j);
        is.push(bank.colItem[col]!);
      }
      rowStart[j + 1] = js.length;
    }
    return { rowStart, j: tf.tensor1d(js, 'int32'), i: tf.tensor1d(is, 'int32') };
  }
  const right = group(1);
  const wrong = group(0);
  let disposed = false;

  function lossOf(x: Tensor1D, r0: number, r1: number, itemPrior: boolean, thetaPrior: boolean): Scalar {
    const seg = (off: number, len: number): Tensor1D => tf.slice(x, [off], [len]);
    const theta = seg(layout.theta, J);
    const slope = seg(layout.slope, I);
    const intercept = seg(layout.intercept, I);
    const guess = seg(layout.guess, I);
    const slip = seg(layout.slip, I);
    const terms: (Scalar | null)[] = [];
    for (const [grp, correct] of [
      [right, true],
      [wrong, false],
    ] as const) {
      const c0 = grp.rowStart[r0]!;
      const n = grp.rowStart[r1]! - c0;
      if (n === 0) continue;
      const ci = tf.slice(grp.i, [c0], [n]);
      const th = gather(theta, tf.slice(grp.j, [c0], [n]));
      const eta = tf.add(pl >= 2 ? tf.mul(gather(slope, ci), th) : th, gather(intercept, ci));
      let logLik: Tensor;
      if (pl <= 2) {
        // log sigmoid(t) = -softplus(-t). Not tf.logSigmoid: in tfjs 4.22 its custom gradient fails
        // ("reading 'backend'") when its input is an intermediate tensor.
        logLik = tf.neg(tf.softplus(correct ? tf.neg(eta) : eta));
      } else {
        const gl = gather(guess, ci);
        const sl = pl === 4 ? gather(slip, ci) : null;
        // lo = sigmoid(guess), 1 - hi = sigmoid(slip), hi - lo = sigmoid(-slip) - sigmoid(guess).
        const span = sl === null ? tf.sigmoid(tf.neg(gl)) : tf.sub(tf.sigmoid(tf.neg(sl)), tf.sigmoid(gl));
        if (correct) {
          logLik = tf.log(tf.add(tf.sigmoid(gl), tf.mul(span, tf.sigmoid(eta))));
        } else {
          const rest = tf.mul(span, tf.sigmoid(tf.neg(eta)));
          logLik = tf.log(sl === null ? rest : tf.add(tf.sigmoid(sl), rest));
        }
      }
      terms.push(tf.neg(tf.sum(logLik)) as Scalar);
    }
    if (thetaPrior) terms.push(ridge(tf, tf.slice(theta, [r0], [r1 - r0]), 1));
    if (itemPrior) {
      if (pl >= 2) terms.push(ridge(tf, slope, lamItem, 1));
      terms.push(ridge(tf, intercept, lamItem));
      if (pl >= 3) terms.push(ridge(tf, guess, lamItem));
      if (pl >= 4) terms.push(ridge(tf, slip, lamItem));
    }
    return total(tf, terms);
  }

  return {
    layout,
    free,
    tfBackend: tf.getBackend(),
    lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
      if (disposed) throw new LlmNrmError('INVALID_OPTION', 'tfjs objective used after dispose()');
      const [r0, r1] = rowRange(scope, J);
      return evaluate(tf, (xT) => lossOf(xT, r0, r1, scope.itemPrior !== false, scope.thetaPrior !== false), x, g, free);
    },
    dispose(): void {
      if (disposed) return;
      disposed = true;
      for (const t of [right.j, right.i, wrong.j, wrong.i]) t.dispose();
    },
  };
}

/**
 * The tfjs objective of a family on its (prepared) bank: option-level families (llm-nrm, nrm,
 * nrm-hard) on the LLM-NRM graph, binary ones on the correctness of `bank`, both on the family's
 * own layout, so the parameter vector is core's.
 */
export function tfjsFamilyObjective(
  bank: ResponseBank,
  family: ModelFamily,
  priors: Priors | undefined,
  tf: Tf,
  options: TfjsObjectiveOptions = {},
): TfjsObjective {
  return tfjsObjective(bank, family.layout(bank), priors, tf, options);
}

/**
 * The tfjs objective of a layout: LLM-NRM/NRM layouts as `tfjsLlmNrmObjective`; binary layouts on the
 * correctness of `bank` (as core's binary family does).
 */
export function tfjsObjective(bank: ResponseBank, layout: Layout, priors: Priors | undefined, tf: Tf, options: TfjsObjectiveOptions = {}): TfjsObjective {
  if (optionLevelLayout(layout)) return tfjsLlmNrmObjective(bank, layout, priors, tf, options);
  return tfjsBinaryObjective(bank, layout, correctness(bank), priors, tf, options);
}

export interface CreateTfjsObjectiveOptions extends TfjsObjectiveOptions {
  /** LLM-NRM parts (ablations); default all on. Ignored by other models. */
  parts?: Partial<LlmNrmParts>;
  /** Priors, as core's objectives (DEFAULT_PRIORS). */
  priors?: Priors;
  /** A tfjs already loaded (default: `await loadTfjs()`). */
  tfjs?: LoadedTfjs;
}

export interface CreatedTfjsObjective {
  objective: TfjsObjective;
  /** The bank the objective runs on (hardened for 'nrm-hard'). */
  bank: ResponseBank;
  parts: LlmNrmParts;
  backend: TfjsBackendName;
  /** `loadTfjs`'s account of what it loaded. */
  detail: string;
}

/**
 * The tfjs counterpart of core's `modelObjective`: loads tfjs (GPU when `@tensorflow/tfjs-node-gpu` is
 * installed) and builds the objective of a model name on the same layout as core's.
 *
 * @example
 *   const { objective, backend } = await createTfjsObjective(bank, 'llm-nrm');
 *   const g = new Float64Array(objective.layout.size);
 *   const loss = objective.lossAndGrad(x, g);
 *   objective.dispose();
 */
export async function createTfjsObjective(
  bank: ResponseBank,
  model: ModelName = 'llm-nrm',
  options: CreateTfjsObjectiveOptions = {},
): Promise<CreatedTfjsObjective> {
  const family = getFamily(model, options.parts ?? {});
  const loaded = options.tfjs ?? (await loadTfjs());
  const { tf, backend, detail } = loaded;
  const fitBank = family.prepare(bank);
  const objective = tfjsFamilyObjective(fitBank, family, options.priors ?? {}, tf, { gatherGradient: options.gatherGradient ?? 'auto' });
  return { objective, bank: fitBank, parts: { ...family.parts }, backend, detail };
}
