import type { VectorOps } from './vectorOps.js';

export type OptimizerName = 'lbfgs' | 'adam';

/** Progress of a running optimization, reported about once a second. */
export interface OptimizeProgress {
  iteration: number;
  passes: number;
  loss: number;
  seconds: number;
  /** L-BFGS: the estimated distance to the optimum in SE units (the Newton decrement), where measured. */
  distance?: number;
  /** L-BFGS: the distance below which the run stops (its `distanceTolerance`), where one is set. */
  stopDistance?: number;
}

export interface OptimizeOptions {
  /** Iteration cap. Default 1000 for L-BFGS; Adam runs exactly `steps`. */
  maxIterations?: number;
  /** L-BFGS stops when the loss falls by less than `tolerance` x |loss| over 5 iterations. Default 1e-9. */
  tolerance?: number;
  /** L-BFGS stops when the Newton decrement sqrt(g^T H_k g), the distance to the optimum in SE units, falls below this (0: off; fit's 0.01). */
  distanceTolerance?: number;
  /** Checked after every accepted step: true stops the fit (reason 'degenerate'). */
  stop?: (x: Float64Array) => boolean;
  /** The relative-tolerance stop counts only below this Newton decrement (default Infinity): a crawl along a curved valley is slow far from the optimum. */
  toleranceDistance?: number;
  /** L-BFGS stops when the largest preconditioned gradient entry is below this. Default 1e-6. */
  gradTolerance?: number;
  /** L-BFGS: from this iteration the first trial step is Nocedal and Wright's eq. 3.60 (at most 1). Default Infinity; fit's 30, its twin's 0. */
  decreaseStepFrom?: number;
  /** L-BFGS: where its vector sweeps run (default serialVectorOps; an engine may offer a threaded one, the same bits). */
  vectors?: VectorOps;
  /** L-BFGS memory (curvature pairs kept). Default 12. */
  memory?: number;
  /** A (block) preconditioner as the initial inverse Hessian instead of the scaled identity, refreshed every `refreshEvery` iterations (default 10). */
  preconditioner?: {
    apply(v: Float64Array, out: Float64Array): void;
    refresh(x: Float64Array): void;
    /** Optional: both applies in one sweep, the same bits. */
    applyPair?(v1: Float64Array, out1: Float64Array, v2: Float64Array, out2: Float64Array): void;
  };
  refreshEvery?: number;
  /** L-BFGS: the preconditioner is already refreshed near x0 (a warm start): no refresh at iteration 0. */
  refreshed?: boolean;
  /** L-BFGS: start from these curvature pairs (a previous run's `lbfgsMemory`); the run takes over their arrays. */
  startMemory?: LbfgsMemory;
  /** Relative rounding noise of the loss (default 0): loss differences within 100 times it are judged by the gradients. */
  lossNoise?: number;
  /** Adam: steps (default 2500), learning rate (default 0.05), betas (0.9, 0.999). */
  steps?: number;
  lr?: number;
  /** Called about once a second with the state. */
  onProgress?: (p: OptimizeProgress) => void;
  /** Clock in milliseconds (default Date.now); injectable for tests. */
  now?: () => number;
}

/** L-BFGS's memory: the curvature pairs s, y (oldest first), their 1 / s'y, and the scale gamma of the newest. */
export interface LbfgsMemory {
  s: Float64Array[];
  y: Float64Array[];
  rho: number[];
  gamma: number;
}

export interface OptimizeResult {
  x: Float64Array;
  loss: number;
  iterations: number;
  /** Evaluations of lossAndGrad, i.e. passes over the data. */
  passes: number;
  converged: boolean;
  /** Why it stopped: 'distance' | 'tolerance' | 'gradient' | 'max-iterations' | 'steps' | 'line-search'. */
  reason: string;
  /** L-BFGS: the last Newton decrement, the estimated distance to the optimum in SE units (NaN for Adam). */
  distance?: number;
  /** Loss after each iteration (index 0: the starting point). */
  trace: number[];
  /** Seconds since the start at each trace entry. */
  traceSeconds: number[];
  /** Passes over the data at each trace entry. */
  tracePasses: number[];
  seconds: number;
  /** L-BFGS: its memory at the end (for `startMemory` of a run from here). */
  lbfgsMemory?: LbfgsMemory;
}
