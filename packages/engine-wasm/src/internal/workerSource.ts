// The source text of a pool worker (see pool.ts for the protocol). Kept as a string so that one
// body serves Node (worker_threads, `eval`; nodePlatform.ts adds the Node glue) and browsers (a
// Blob URL), from TypeScript sources in tests and from dist alike. Plain JavaScript, no imports: the kernel module and memory arrive by
// message. Between passes the worker waits with Atomics.waitAsync, so its event loop stays free
// for attach/detach messages.
import { TASK } from './module.js';
import { TAG_SHIFT } from './claim.js';
import { CTRL, FLAG_SLOTS } from './pool.js';

/** The environment-free part: `poolWorker(ctrlBuffer, listen)`. */
export const WORKER_BODY = `
function poolWorker(ctrlBuffer, listen) {
  const C = ${JSON.stringify(CTRL)};
  const TAG_SHIFT = ${TAG_SHIFT};
  const FLAG_SLOTS = ${FLAG_SLOTS};
  const ctrl = new Int32Array(ctrlBuffer);
  const kernels = new Map();
  listen((m) => {
    if (m.type === 'attach') {
      const inst = new WebAssembly.Instance(m.module, { env: { memory: m.memory } });
      kernels.set(m.id, inst.exports);
    } else if (m.type === 'detach') {
      kernels.delete(m.id);
    }
  });
  let gen = Atomics.load(ctrl, C.GEN);
  const work = () => {
    gen = Atomics.load(ctrl, C.GEN);
    const tag = gen & 0x7ff;
    for (;;) {
      const v = Atomics.load(ctrl, C.NEXT);
      if ((v >>> TAG_SHIFT) !== tag) break;
      const n = ctrl[C.COUNT];
      if ((v & ((1 << TAG_SHIFT) - 1)) >= n) break;
      const k = kernels.get(ctrl[C.KERNEL]);
      if (k === undefined) break;
      const h = ctrl[C.HEADER];
      const b0 = ctrl[C.FIRST];
      const task = ctrl[C.TASK];
      if (Atomics.compareExchange(ctrl, C.NEXT, v, v + 1) !== v) continue;
      try {
        const blk = b0 + (v & ((1 << TAG_SHIFT) - 1));
        if (task === ${TASK.LOSS}) k.runBlock(h, blk);
        else if (task === ${TASK.CURV_ROWS}) k.curvRows(h, blk);
        else if (task === ${TASK.CURV_ITEMS}) k.curvItems(h, blk);
        else if (task === ${TASK.REDUCE}) k.reduceSlice(h, blk);
        else k.applyBlocks(h, blk);
      } catch (e) {
        Atomics.store(ctrl, C.ERROR, 1);
        console.error(e);
      }
      // The block's flag before DONE (an overlapped pass's caller reads the flags, pool.ts begin);
      // DONE notified after each block, for a caller waiting on one.
      const t = v & ((1 << TAG_SHIFT) - 1);
      if (t < FLAG_SLOTS) Atomics.store(ctrl, C.FLAGS + t, gen);
      Atomics.add(ctrl, C.DONE, 1);
      Atomics.notify(ctrl, C.DONE);
    }
    wait();
  };
  const wait = () => {
    const r = Atomics.waitAsync(ctrl, C.GEN, gen);
    if (r.async) r.value.then(work);
    else work();
  };
  wait();
}
`;

/** Worker source for a web worker: the first message carries the control buffer. */
export const WEB_WORKER_SOURCE = `${WORKER_BODY}
const pending = [];
let handler = null;
self.onmessage = (e) => {
  const m = e.data;
  if (m && m.type === 'init') {
    poolWorker(m.ctrl, (h) => { handler = h; for (const p of pending.splice(0)) h(p); });
  } else if (handler) handler(m);
  else pending.push(m);
};
`;
