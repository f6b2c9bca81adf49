// A worker thread of `evaluate --cv` (evaluateWorkers.ts): holds the bank and the fold assignment
// (workerData), loads the engine once, and runs one (model, fold) fit per message.
import { parentPort, workerData } from 'node:worker_threads';
import { fit, LlmNrmError, type FitOptions } from '@llm-nrm/core';
import { crossValidateFold } from '@llm-nrm/analysis';
import { loadEngine } from '../engines.js';
import type { CvWorkerData, CvWorkerReply, CvWorkerTask } from './evaluateWorkers.js';

const data = workerData as CvWorkerData;
const port = parentPort!;
const ready = (async (): Promise<FitOptions> => {
  const fitOptions: FitOptions = { engine: await loadEngine(data.engine, { threads: data.engineThreads }) };
  if (data.maxIterations !== undefined) fitOptions.maxIterations = data.maxIterations;
  return fitOptions;
})();
const send = (m: CvWorkerReply): void => port.postMessage(m);

port.on('message', (task: CvWorkerTask) => {
  void ready.then(
    (fitOptions) => {
      try {
        const t0 = Date.now();
        let last = 0;
        // The engine that ran the fit (FitResult.engine: auto names the one it picked).
        let engine = '';
        const metrics = crossValidateFold(
          data.bank,
          data.folds,
          { spec: task.spec, fold: task.fold },
          {
            fitOptions,
            fit: (bank, options) => {
              const res = fit(bank, options);
              engine = res.engine;
              return res;
            },
            onProgress: (msg) => {
              const now = Date.now();
              if (now - last < 1000) return;
              last = now;
              send({ kind: 'progress', msg });
            },
          },
        );
        send({ kind: 'done', index: task.index, metrics, engine, seconds: (Date.now() - t0) / 1000 });
      } catch (e) {
        send({ kind: 'error', index: task.index, message: (e as Error).message, ...(e instanceof LlmNrmError ? { code: e.code } : {}) });
      }
    },
    (e: unknown) => send({ kind: 'error', index: task.index, message: (e as Error).message }),
  );
});
