import type { EvalScope } from '../objective.js';
import type { VectorOps } from './vectorOps.js';

export type OptimizerName = 'lbfgs' | 'adam';

/** Progress of a running optimization, reported about once a second. */
export interface OptimizeProgress {
  iteration: number;
  passes: number;
  loss: number;
  seconds: number;
}

export interface OptimizeOptions {
  /** Iteration cap. Default 1000 for L-BFGS; Adam runs exactly `steps`. */
  maxIterations?: number;
  /** L-BFGS stops when the loss falls by less than `tolerance` x |loss| over 5 iterations. Default 1e-9. */
  tolerance?: number;
  /**
   * L-BFGS stops when the Newton decrement sqrt(g^T H_k g) (H_k: its inverse-Hessian model) falls
   * below this: the estimated distance to the optimum in units of standard error (0: off, the
   * default of minimizeLbfgs; fit's default is 0.01).
   */
  distanceTolerance?: number;
  /**
   * Checked after every accepted step: true stops the fit (reason 'degenerate'), e.g. once the
   * point is in a basin whose remaining decrease is below float precision (LLM-NRM: the gate off).
   */
  stop?: (x: Float64Array) => boolean;
  /**
   * The relative-tolerance stop counts only once the estimated distance to the optimum (the Newton
   * decrement, in SE units) is below this (default Infinity: always). A crawl along a curved valley
   * can make less than `tolerance` per 5 iterations while tens of SEs away (fit/binaryStop.ts).
   */
  toleranceDistance?: number;
  /** Iterations before the distance criterion may stop (default 0). */
  minIterations?: number;
  /** L-BFGS stops when the largest preconditioned gradient entry is below this. Default 1e-6. */
  gradTolerance?: number;
  /**
   * L-BFGS: from this iteration on the line search's first trial is Nocedal and Wright's eq. 3.60
   * step, 2.02 x the last accepted decrease / -slope (at most 1), instead of twice the last accepted
   * step (at most 1). Default Infinity (never); fit's default 30, its twin's 0.
   */
  decreaseStepFrom?: number;
  /**
   * L-BFGS: where its vector sweeps run (fit/vectorOps.ts; default serialVectorOps, the calling
   * thread). An engine may offer a threaded one (Engine.vectors): the same bits.
   */
  vectors?: VectorOps;
  /** L-BFGS memory (curvature pairs kept). Default 12. */
  memory?: number;
  /** Diagonal curvature estimate (same length as x; > 0) used as L-BFGS's initial inverse Hessian. */
  diagonal?: Float64Array;
  /**
   * A (block) preconditioner used as the initial inverse Hessian instead of `diagonal`, refreshed
   * at the current point every `refreshEvery` iterations (default 10).
   */
  preconditioner?: {
    apply(v: Float64Array, out: Float64Array): void;
    refresh(x: Float64Array): void;
    /**
     * Optional: apply(v1, out1) and apply(v2, out2) in one call, the same bits (one sweep over the
     * blocks): L-BFGS then applies the preconditioner once per iteration instead of twice.
     */
    applyPair?(v1: Float64Array, out1: Float64Array, v2: Float64Array, out2: Float64Array): void;
  };
  refreshEvery?: number;
  /** L-BFGS: the preconditioner is already refreshed near x0 (a warm start): no refresh at iteration 0. */
  refreshed?: boolean;
  /**
   * L-BFGS: start from these curvature pairs (a previous run's `lbfgsMemory`, on the same
   * parameters) instead of an empty memory. Taken over: the run reuses and changes its arrays.
   */
  startMemory?: LbfgsMemory;
  /**
   * Relative rounding noise of the loss (an f32 kernel's: about 1e-8; default 0). Where a loss
   * difference is within 100 times it, the line search measures decreases from the gradients.
   */
  lossNoise?: number;
  /** Adam: steps (default 2500), learning rate (default 0.05), betas (0.9, 0.999). */
  steps?: number;
  lr?: number;
  /** Called about once a second with the state. */
  onProgress?: (p: OptimizeProgress) => void;
  /** Rows and prior scope passed to every evaluation. */
  scope?: EvalScope;
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
