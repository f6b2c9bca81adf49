import { describe, expect, it } from 'vitest';
import { reclaimMemory, reclaimWhenGrown } from './reclaimMemory.js';

describe('reclaimMemory', () => {
  it('collects what nothing holds any more, now (a weak reference to it comes back empty)', async () => {
    // Made and dropped in a function of its own: nothing of this scope holds it.
    const ref = ((): WeakRef<Float64Array> => new WeakRef(new Float64Array(1 << 20).fill(1)))();
    // A weak reference keeps its target to the end of the job that made it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(reclaimMemory()).toBe(true);
    expect(ref.deref()).toBeUndefined();
  });

  it('leaves what is still held', async () => {
    const held = new Float64Array(16).fill(2);
    const ref = new WeakRef(held);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reclaimMemory()).toBe(true);
    expect(ref.deref()).toBe(held);
    // The runtime's own `gc` global is not left exposed by the call.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('as a read goes: collects once the resident size has grown by the given bytes, when it is read', async () => {
    const ref = ((): WeakRef<Float64Array> => new WeakRef(new Float64Array(1 << 20).fill(3)))();
    await new Promise((resolve) => setImmediate(resolve));
    // Grown by at least 0 bytes, read at every call: a collection.
    reclaimWhenGrown(0, 0)();
    expect(ref.deref()).toBeUndefined();
  });
});
