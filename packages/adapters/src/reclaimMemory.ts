// A full garbage collection where a large read hands over to what needs memory next. The read
// leaves hundreds of megabytes of dead buffers behind (the JSON Lines workers' transferred batches,
// the parsed rows, the bank builder's chunks) that V8 collects only when its heuristics say so: at
// 189 x 31,554 they were still held when the bank was assembled and when the synchronous fit
// allocated its working set, and `llm-nrm fit` peaked at 1.32-1.39 GB where the fit itself holds
// 0.9 GB (packages/cli/BENCHMARKS.md). V8 gives no collection to call without
// --expose-gc; the flag set at run time exposes `gc` to a new context, the one documented way
// (node:v8 setFlagsFromString) short of restarting node with the flag.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export { reclaimMemory, reclaimWhenGrown };

let collect: (() => void) | null | undefined;

/** Run a full (major) collection now; a no-op where the runtime refuses (returns whether it ran). */
function reclaimMemory(): boolean {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      collect = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collect = null;
    } finally {
      // Later contexts (workers, vm users) do not get a `gc` global from this.
      setFlagsFromString('--no-expose-gc');
    }
  }
  if (collect === null) return false;
  collect();
  return true;
}

/**
 * A check to call as a long read goes: a full collection whenever the process's resident memory
 * has grown by `bytes` since the last one. V8 lets dead buffers pile up while a read allocates fast
 * (at 189 x 31,554 the threaded JSON Lines read reached 1.34 GB resident, of which about half was
 * dead); this bounds them at the cost of a collection per `bytes` of growth. The resident size is
 * read at most every `everyMs` (reading it costs tens of microseconds, called after every batch:
 * 0.4-0.5 s of that read's main thread), far finer than the read grows by `bytes`.
 */
function reclaimWhenGrown(bytes = 256 << 20, everyMs = 50): () => void {
  let base = process.memoryUsage.rss();
  let checked = performance.now();
  return () => {
    const now = performance.now();
    if (now - checked < everyMs) return;
    checked = now;
    const rss = process.memoryUsage.rss();
    if (rss - base < bytes) return;
    reclaimMemory();
    base = process.memoryUsage.rss();
  };
}
