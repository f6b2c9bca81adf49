// The caller's side of a generation of n units posted on a shared control array (pool.ts's kernel
// blocks, vectorPool.ts's vector parts): claim units one at a time from `next` (tag << TAG_SHIFT |
// index) and run them here, then wait on `done` until the workers have finished theirs. Returns
// how many units ran here.

/** NEXT holds (generation tag << TAG_SHIFT) | next unit index. */
export const TAG_SHIFT = 20;
export const INDEX_MASK = (1 << TAG_SHIFT) - 1;

export function runClaimed(ctrl: Int32Array, next: number, done: number, n: number, canBlock: boolean, run: (index: number) => void): number {
  let mine = 0;
  for (;;) {
    const v = Atomics.load(ctrl, next);
    const idx = v & INDEX_MASK;
    if (idx >= n) break;
    if (Atomics.compareExchange(ctrl, next, v, v + 1) !== v) continue;
    run(idx);
    mine++;
    Atomics.add(ctrl, done, 1);
  }
  for (;;) {
    const d = Atomics.load(ctrl, done);
    if (d >= n) break;
    if (canBlock) Atomics.wait(ctrl, done, d, 1000);
  }
  return mine;
}
