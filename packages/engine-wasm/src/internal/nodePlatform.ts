// Node's worker threads for the pool (Node-only: imported by the Node entry, src/index.ts).
import { Worker } from 'node:worker_threads';
import type { PoolPlatform } from './pool.js';
import { WORKER_BODY } from './workerSource.js';

/** Worker source for Node's worker_threads (eval mode, CommonJS): the control buffer comes as workerData. */
const NODE_WORKER_SOURCE = `${WORKER_BODY}
const { parentPort, workerData } = require('node:worker_threads');
poolWorker(workerData.ctrl, (h) => parentPort.on('message', h));
`;

export const nodePlatform: PoolPlatform = {
  spawn(ctrl) {
    const w = new Worker(NODE_WORKER_SOURCE, { eval: true, workerData: { ctrl } });
    // Idle workers never keep the process alive; a pass in flight holds the caller anyway.
    w.unref();
    return w;
  },
  canBlock: true,
};
