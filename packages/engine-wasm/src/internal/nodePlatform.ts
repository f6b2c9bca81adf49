// Node's worker threads for the pool (Node-only: imported by the Node entry, src/index.ts).
import { Worker } from 'node:worker_threads';
import type { PoolPlatform } from './pool.js';
import { VECTOR_WORKER_BODY } from './vectorPool.js';
import { WORKER_BODY } from './workerSource.js';

/** Worker source for Node's worker_threads (eval mode, CommonJS): the control buffer comes as workerData. */
const NODE_WORKER_SOURCE = `${WORKER_BODY}
const { parentPort, workerData } = require('node:worker_threads');
poolWorker(workerData.ctrl, (h) => parentPort.on('message', h));
`;

/** The L-BFGS vector worker's source for worker_threads: its buffers come as workerData. */
const NODE_VECTOR_SOURCE = `${VECTOR_WORKER_BODY}
const { parentPort, workerData } = require('node:worker_threads');
vectorWorker(workerData, (h) => parentPort.on('message', h));
`;

export const nodePlatform: PoolPlatform = {
  spawn(ctrl) {
    const w = new Worker(NODE_WORKER_SOURCE, { eval: true, workerData: { ctrl } });
    // Idle workers never keep the process alive; a pass in flight holds the caller anyway.
    w.unref();
    return w;
  },
  spawnVectors(buffers) {
    const w = new Worker(NODE_VECTOR_SOURCE, { eval: true, workerData: buffers });
    w.unref();
    return w;
  },
  canBlock: true,
};
