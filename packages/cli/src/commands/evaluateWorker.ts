// A worker thread of `evaluate` (evaluateWorkers.ts): holds the bank (and CV's fold assignment) in
// workerData, loads the engine once, and runs one task per message: a CV (model, fold) fit, one
// LLM fold of the compression or adaptive study, or (`publish`) a share of the LLMs' tiny-run scores.
import { parentPort, workerData } from 'node:worker_threads';
import { fit, LlmNrmError, type FitOptions, type FitResult, type ResponseBank } from '@llm-nrm/core';
import { adaptiveStudyFolds, compressionFolds, crossValidateFold, tinyRunScores } from '@llm-nrm/analysis';
import { loadEngine } from '../engines.js';
import type { EvalWorkerData, EvalWorkerReply, EvalWorkerTask } from './evaluateWorkers.js';

const data = workerData as EvalWorkerData;
const port = parentPort!;
const ready = (async (): Promise<FitOptions> => {
  const fitOptions: FitOptions = { engine: await loadEngine(data.engine, { threads: data.engineThreads }) };
  if (data.maxIterations !== undefined) fitOptions.maxIterations = data.maxIterations;
  return fitOptions;
})();
const send = (m: EvalWorkerReply): void => port.postMessage(m);

port.on('message', (task: EvalWorkerTask) => {
  void ready.then(
    (fitOptions) => {
      try {
        const t0 = Date.now();
        let last = 0;
        // The engine that ran the fits (FitResult.engine: auto names the one it picked).
        let engine = '';
        const fitLogged = (bank: ResponseBank, options: FitOptions): FitResult => {
          const res = fit(bank, options);
          engine = res.engine;
          return res;
        };
        const onProgress = (msg: string): void => {
          const now = Date.now();
          if (now - last < 1000) return;
          last = now;
          send({ kind: 'progress', msg });
        };
        const result =
          task.kind === 'scores'
            ? [...tinyRunScores(task.bundle, task.records, task.nuisance)]
            : task.kind === 'cv'
              ? crossValidateFold(data.bank!, data.folds!, { spec: task.spec, fold: task.fold }, { fitOptions, fit: fitLogged, onProgress })
              : task.kind === 'compression'
                ? compressionFolds(data.bank!, { ...task.options, only: new Set([task.fold]), fitOptions, fit: fitLogged, onProgress })
                : adaptiveStudyFolds(data.bank!, { ...task.options, only: new Set([task.fold]), fitOptions, fit: fitLogged, onProgress });
        send({ kind: 'done', index: task.index, result, engine, seconds: (Date.now() - t0) / 1000 });
      } catch (e) {
        send({ kind: 'error', index: task.index, message: (e as Error).message, ...(e instanceof LlmNrmError ? { code: e.code } : {}) });
      }
    },
    (e: unknown) => send({ kind: 'error', index: task.index, message: (e as Error).message }),
  );
});
