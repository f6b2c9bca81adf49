// Web workers for the pool (browser entry, src/browser.ts): a Blob URL of the worker source.
// Threads need shared memory, i.e. a cross-origin isolated page (or a worker of one); a page's main
// thread may not block, so there the caller spins on the done counter for the last blocks.
import type { PoolPlatform, WorkerHandle } from './pool.js';
import { WEB_WORKER_SOURCE } from './workerSource.js';

interface WebWorkerCtor {
  new (url: string): WorkerHandle;
}
interface WebGlobals {
  Worker?: WebWorkerCtor;
  Blob?: new (parts: string[], options: { type: string }) => unknown;
  URL: { createObjectURL?(blob: unknown): string };
  document?: unknown;
}

/** The web platform, or null where there are no workers (then objectives run on one thread). */
export function browserPlatform(): PoolPlatform | null {
  const g = globalThis as unknown as WebGlobals;
  if (g.Worker === undefined || g.Blob === undefined || g.URL.createObjectURL === undefined) return null;
  const WorkerCtor = g.Worker;
  const url = g.URL.createObjectURL(new g.Blob([WEB_WORKER_SOURCE], { type: 'text/javascript' }));
  return {
    spawn(ctrl) {
      const w = new WorkerCtor(url);
      w.postMessage({ type: 'init', ctrl });
      return w;
    },
    canBlock: g.document === undefined,
  };
}
