// `evaluate`'s studies on worker threads: cell-level CV (`--cv`), one (model, fold) fit a task, and
// the compression and adaptive studies (`--compression`, `--adaptive`), one LLM fold a task. Each
// task depends only on the bank, the seed and its index (analysis' crossValidationPlan; the `only`
// of compressionFolds and adaptiveStudyFolds), so the result is the same whatever the number of
// workers or the order the tasks finish in: the parts are put back by task index and joined as the
// one-thread study joins them (crossValidationOf, compressionOf, adaptiveStudyOf). `publish` scores
// the calibrated LLMs' tiny runs on the same workers, a share of the LLMs a task.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  adaptiveStudy,
  adaptiveStudyOf,
  compression,
  compressionOf,
  crossValidate,
  tinyRunScores,
  crossValidationOf,
  crossValidationPlan,
  type AdaptiveStudy,
  type AdaptiveStudyFoldParts,
  type AdaptiveStudyOptions,
  type Compression,
  type CompressionFoldParts,
  type CompressionScoring,
  type CrossValidation,
  type CvFoldMetrics,
  type ModelSpec,
  type TinyRunScore,
} from '@llm-nrm/analysis';
import {
  fit,
  getFamily,
  LlmNrmError,
  type CalibrationBundle,
  type FitOptions,
  type LlmNrmErrorCode,
  type ModelName,
  type ResponseBank,
  type ResponseRecord,
} from '@llm-nrm/core';
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

/** What a worker is started with (workerData). */
export interface EvalWorkerData {
  /** The studies' bank (null for tiny-run scoring, whose tasks carry their records). */
  bank: ResponseBank | null;
  /** CV's fold of each cell (null for the compression study, whose folds are of LLMs). */
  folds: Uint8Array | null;
  engine: string;
  /** The wasm engine's threads in each worker: the cores shared out, so the workers do not oversubscribe them. */
  engineThreads: number;
  maxIterations?: number;
}

/** The compression study's settings a worker runs its fold under (compressionFolds' options but the fit's). */
export interface CompressionTaskOptions {
  budgets: number[];
  scoring: CompressionScoring;
  seed: number;
  folds: number;
}

/** The adaptive study's settings a worker runs its fold under (adaptiveStudyFolds' options but the fit's). */
export type AdaptiveTaskOptions = Omit<AdaptiveStudyOptions, 'fitOptions' | 'fit' | 'onProgress'>;

/** One task: a CV fit of `spec` on `fold`, or LLM fold `fold` of the compression or adaptive study. */
export type EvalWorkerTask =
  | { kind: 'cv'; index: number; spec: ModelSpec; fold: number }
  | { kind: 'compression'; index: number; options: CompressionTaskOptions; fold: number }
  | { kind: 'adaptive'; index: number; options: AdaptiveTaskOptions; fold: number }
  | { kind: 'scores'; index: number; bundle: CalibrationBundle; records: ResponseRecord[]; nuisance: 'sharpness' | 'fleet' };

export type EvalWorkerReply =
  | { kind: 'progress'; msg: string }
  | {
      kind: 'done';
      index: number;
      result: CvFoldMetrics | CompressionFoldParts | AdaptiveStudyFoldParts | [string, TinyRunScore][];
      engine: string;
      seconds: number;
    }
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
  say(`cv: ${plan.tasks.length} fits (${plan.specs.length} models x ${options.folds} folds) on ${nWorkers} worker threads`);
  const done = await onWorkers(
    workerData(bank, plan.folds, options, nWorkers),
    order.map((index) => ({ kind: 'cv' as const, index, spec: plan.tasks[index]!.spec, fold: plan.tasks[index]!.fold })),
    nWorkers,
    (t, finished) => t.kind === 'cv' && say(`cv ${t.spec.name}: fold ${t.fold + 1}/${options.folds} started (${finished}/${plan.tasks.length} done)`),
    say,
  );
  done.forEach((d, index) => ran.add(plan.tasks[index]!.spec.model, d.engine));
  return {
    ...crossValidationOf(
      plan,
      options.seed,
      done.map((d) => d.result as CvFoldMetrics),
    ),
    engines: ran.engines(),
  };
}

/** Fold-parallel settings of a study: the engine each worker loads, the fits' options in this thread (one worker), the workers. */
export interface FoldWorkerOptions {
  /** `--engine` name, loaded in each worker. */
  engine: string;
  fitOptions: FitOptions;
  maxIterations?: number;
  /** Worker threads (default: the machine's available parallelism, at most one per fold); 1 runs in this thread. */
  workers?: number;
  onProgress?: (msg: string) => void;
}

/**
 * The compression study (analysis' `compression`) with its LLM folds on worker threads: each
 * calibrates its fold, selects and scores its held-out LLMs' tiny runs, and the parts are joined by
 * `compressionOf`: the same study as in one thread.
 */
export function compressionParallel(bank: ResponseBank, study: CompressionTaskOptions, options: FoldWorkerOptions): Promise<Compression> {
  return foldsOnWorkers(
    bank,
    options,
    'compression',
    study.folds,
    (fold, index) => ({ kind: 'compression', index, options: study, fold }),
    (say) => compression(bank, { ...study, fitOptions: options.fitOptions, onProgress: say }),
    (parts) => compressionOf(bank, study, parts as CompressionFoldParts[]),
  );
}

/** The adaptive study (analysis' `adaptiveStudy`) with its LLM folds on worker threads, joined by `adaptiveStudyOf`: the same study as in one thread. */
export function adaptiveStudyParallel(bank: ResponseBank, study: AdaptiveTaskOptions, options: FoldWorkerOptions): Promise<AdaptiveStudy> {
  return foldsOnWorkers(
    bank,
    options,
    'adaptive',
    study.folds ?? 5,
    (fold, index) => ({ kind: 'adaptive', index, options: study, fold }),
    (say) => adaptiveStudy(bank, { ...study, fitOptions: options.fitOptions, onProgress: say }),
    (parts) => adaptiveStudyOf(bank, study, parts as AdaptiveStudyFoldParts[]),
  );
}

/** A study of `folds` LLM folds: in this thread with one worker, else a fold a task on the workers, the parts joined in fold order. */
async function foldsOnWorkers<T>(
  bank: ResponseBank,
  options: FoldWorkerOptions,
  name: string,
  folds: number,
  task: (fold: number, index: number) => EvalWorkerTask,
  inThread: (say: (msg: string) => void) => T,
  join: (parts: unknown[]) => T,
): Promise<T> {
  const nWorkers = Math.max(1, Math.min(options.workers ?? availableParallelism(), folds));
  const say = options.onProgress ?? (() => {});
  if (nWorkers === 1) return inThread(say);
  say(`${name}: ${folds} LLM folds on ${nWorkers} worker threads`);
  const tasks = Array.from({ length: folds }, (_, f) => task(f, f));
  const done = await onWorkers(workerData(bank, null, options, nWorkers), tasks, nWorkers, () => {}, say);
  return join(done.map((d) => d.result));
}

/**
 * analysis' `tinyRunScores` (the calibrated LLMs' answers to a package's items scored as runs of it)
 * with the LLMs shared out over worker threads, a share of them a task: each LLM's tiny-run score is
 * its own 1-D searches (`scoreThetaAlone`), whatever else is scored beside it, so the scores are
 * those of one thread. A family that scores LLMs by a joint fit (binary) runs in this thread.
 */
export async function tinyRunScoresParallel(
  restricted: CalibrationBundle,
  runRecords: ResponseRecord[],
  nuisance: 'sharpness' | 'fleet',
  options: { workers?: number; onProgress?: (msg: string) => void } = {},
): Promise<Map<string, TinyRunScore>> {
  const ids = [...new Set(runRecords.map((r) => r.model))];
  const nWorkers = Math.max(1, Math.min(options.workers ?? availableParallelism(), ids.length));
  if (nWorkers === 1 || getFamily(restricted.model).kind !== 'option-level') return tinyRunScores(restricted, runRecords, nuisance);
  // Four shares a worker: one slow share is not left to run alone at the end.
  const shares = Math.min(ids.length, 4 * nWorkers);
  const shareOf = new Map(ids.map((id, t) => [id, Math.floor((t * shares) / ids.length)]));
  const parts: ResponseRecord[][] = Array.from({ length: shares }, () => []);
  for (const r of runRecords) parts[shareOf.get(r.model)!]!.push(r);
  const tasks = parts.map((records, index): EvalWorkerTask => ({ kind: 'scores', index, bundle: restricted, records, nuisance }));
  const say = options.onProgress ?? (() => {});
  const done = await onWorkers({ bank: null, folds: null, engine: 'ts', engineThreads: 1 }, tasks, nWorkers, () => {}, say);
  return new Map(done.flatMap((d) => d.result as [string, TinyRunScore][]));
}

function workerData(bank: ResponseBank, folds: Uint8Array | null, options: { engine: string; maxIterations?: number }, nWorkers: number): EvalWorkerData {
  return {
    bank,
    folds,
    engine: options.engine,
    engineThreads: Math.max(1, Math.floor(WASM_THREADS / nWorkers)),
    ...(options.maxIterations !== undefined ? { maxIterations: options.maxIterations } : {}),
  };
}

/**
 * Runs `tasks` (in the order given: dearest first) on `nWorkers` worker threads holding `data`, a
 * task to each idle worker; resolves with the replies by task index once every task is done, or
 * rejects with the first error (a typed error keeps its code). The workers are stopped either way.
 */
async function onWorkers(
  data: EvalWorkerData,
  tasks: EvalWorkerTask[],
  nWorkers: number,
  started: (t: EvalWorkerTask, finished: number) => void,
  say: (msg: string) => void,
): Promise<Extract<EvalWorkerReply, { kind: 'done' }>[]> {
  const done: Extract<EvalWorkerReply, { kind: 'done' }>[] = new Array(tasks.length);
  let next = 0;
  let finished = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const give = (w: Worker): void => {
        if (next >= tasks.length) return;
        const t = tasks[next++]!;
        started(t, finished);
        w.postMessage(t);
      };
      for (let n = 0; n < nWorkers; n++) {
        const w = new Worker(WORKER_SCRIPT, { workerData: data });
        workers.push(w);
        w.on('message', (m: EvalWorkerReply) => {
          if (m.kind === 'progress') say(m.msg);
          else if (m.kind === 'error') reject(m.code ? new LlmNrmError(m.code as LlmNrmErrorCode, m.message) : new Error(m.message));
          else {
            done[m.index] = m;
            finished++;
            if (finished === tasks.length) resolve();
            else give(w);
          }
        });
        w.on('error', reject);
        w.on('exit', (code) => {
          if (code !== 0) reject(new Error(`an evaluate worker exited with code ${code}`));
        });
        give(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return done;
}
