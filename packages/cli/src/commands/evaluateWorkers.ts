// Cell-level CV (`evaluate --cv`) with its (model, fold) fits on worker threads. Each task depends
// only on the bank, the fold assignment and its model (analysis' crossValidationPlan), so the result
// is the same whatever the number of workers or the order the tasks finish in: the metrics are put
// back by task index and assembled by crossValidationOf, exactly as the one-thread crossValidate does.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { crossValidate, crossValidationOf, crossValidationPlan, type CrossValidation, type CvFoldMetrics, type ModelSpec } from '@llm-nrm/analysis';
import { fit, LlmNrmError, type FitOptions, type LlmNrmErrorCode, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { loadEngine, WASM_THREADS } from '../engines.js';

export interface ParallelCvOptions {
  models: readonly ModelName[];
  ablations: boolean;
  folds: number;
  seed: number;
  /** `--engine` name, loaded in each worker. */
  engine: string;
  maxIterations?: number;
  /** Worker threads (default: the machine's available parallelism, at most one per task); 1 runs in this thread. */
  workers?: number;
  onProgress?: (msg: string) => void;
}

/** What a worker is started with (workerData) and is sent per task. */
export interface CvWorkerData {
  bank: ResponseBank;
  folds: Uint8Array;
  engine: string;
  /** The wasm engine's threads in each worker: the cores shared out, so the workers do not oversubscribe them. */
  engineThreads: number;
  maxIterations?: number;
}

export interface CvWorkerTask {
  index: number;
  spec: ModelSpec;
  fold: number;
}

export type CvWorkerReply =
  | { kind: 'progress'; msg: string }
  | { kind: 'done'; index: number; metrics: CvFoldMetrics; engine: string; seconds: number }
  | { kind: 'error'; index: number; message: string; code?: string };

/**
 * The worker's script: the built one beside this module, also when this module runs from its
 * TypeScript source (vitest's in-process CLI tests), where Node could not load a .ts worker.
 */
const WORKER_SCRIPT = new URL(import.meta.url.endsWith('.ts') ? '../../dist/commands/evaluateWorker.js' : './evaluateWorker.js', import.meta.url);

/**
 * CPU seconds of one fold by family (measured at 189 x 2,000, analysis/BENCHMARKS.md): the workers
 * take the dearest tasks first (longest processing time first), so that no long fit is left to run
 * alone at the end and the workers finish within about one short fit of each other. Only the
 * schedule depends on it, never the result.
 */
const COST: Partial<Record<ModelName, number>> = { '4pl': 16, '3pl': 10, 'llm-nrm': 6, 'nrm-hard': 3, '2pl': 1.5, nrm: 0.8, '1pl': 0.7 };

/** A cross-validation with the engine that ran each model's fits (`--engine auto` picks per family and bank size). */
export interface ParallelCrossValidation extends CrossValidation {
  /** Per model name: the engine of its fits (FitResult.engine), e.g. 'wasm'; names joined by ',' if its folds differed. */
  engines: Record<string, string>;
}

/** Collects the engines that ran each model's fits, in first-seen order. */
function engineLog(): { add(model: string, engine: string): void; engines(): Record<string, string> } {
  const seen = new Map<string, string[]>();
  return {
    add(model, engine) {
      const list = seen.get(model) ?? [];
      if (!list.includes(engine)) list.push(engine);
      seen.set(model, list);
    },
    engines: () => Object.fromEntries([...seen].map(([m, list]) => [m, list.join(',')])),
  };
}

export async function crossValidateParallel(bank: ResponseBank, options: ParallelCvOptions): Promise<ParallelCrossValidation> {
  const plan = crossValidationPlan(bank, { models: options.models, ablations: options.ablations, folds: options.folds, seed: options.seed });
  const nWorkers = Math.max(1, Math.min(options.workers ?? availableParallelism(), plan.tasks.length));
  const say = options.onProgress ?? (() => {});
  const ran = engineLog();
  if (nWorkers === 1) {
    const fitOptions: FitOptions = { engine: await loadEngine(options.engine) };
    if (options.maxIterations !== undefined) fitOptions.maxIterations = options.maxIterations;
    const res = crossValidate(bank, {
      models: options.models,
      ablations: options.ablations,
      folds: options.folds,
      seed: options.seed,
      fitOptions,
      fit: (b, o) => {
        const r = fit(b, o);
        ran.add(r.model, r.engine);
        return r;
      },
      onProgress: say,
    });
    return { ...res, engines: ran.engines() };
  }
  const order = plan.tasks.map((_, i) => i).sort((a, b) => (COST[plan.tasks[b]!.spec.model] ?? 1) - (COST[plan.tasks[a]!.spec.model] ?? 1) || a - b);
  const metrics: CvFoldMetrics[] = new Array(plan.tasks.length);
  const data: CvWorkerData = {
    bank,
    folds: plan.folds,
    engine: options.engine,
    engineThreads: Math.max(1, Math.floor(WASM_THREADS / nWorkers)),
    ...(options.maxIterations !== undefined ? { maxIterations: options.maxIterations } : {}),
  };
  let next = 0;
  let doneCount = 0;
  say(`cv: ${plan.tasks.length} fits (${plan.specs.length} models x ${options.folds} folds) on ${nWorkers} worker threads`);
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const give = (w: Worker): void => {
        if (next >= order.length) return;
        const index = order[next++]!;
        const t = plan.tasks[index]!;
        say(`cv ${t.spec.name}: fold ${t.fold + 1}/${options.folds} started (${doneCount}/${plan.tasks.length} done)`);
        w.postMessage({ index, spec: t.spec, fold: t.fold } satisfies CvWorkerTask);
      };
      for (let n = 0; n < nWorkers; n++) {
        const w = new Worker(WORKER_SCRIPT, { workerData: data });
        workers.push(w);
        w.on('message', (m: CvWorkerReply) => {
          if (m.kind === 'progress') say(m.msg);
          else if (m.kind === 'error') reject(m.code ? new LlmNrmError(m.code as LlmNrmErrorCode, m.message) : new Error(m.message));
          else {
            metrics[m.index] = m.metrics;
            ran.add(plan.tasks[m.index]!.spec.model, m.engine);
            doneCount++;
            if (doneCount === plan.tasks.length) resolve();
            else give(w);
          }
        });
        w.on('error', reject);
        w.on('exit', (code) => {
          if (code !== 0) reject(new Error(`a cross-validation worker exited with code ${code}`));
        });
        give(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return { ...crossValidationOf(plan, options.seed, metrics), engines: ran.engines() };
}
