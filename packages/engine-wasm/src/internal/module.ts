// The compiled kernel modules, decoded from the base64 bytes that the build embeds (no fs, no
// fetch: the same code loads in Node and in browsers) and compiled once per variant.
import { BINARY_KERNEL_BASE64 } from '../generated/binaryBytes.js';
import { KERNEL_PLAIN_BASE64, KERNEL_SHARED_BASE64 } from '../generated/kernelBytes.js';

/** `shared`: memory on a SharedArrayBuffer, for threads; `plain`: an ordinary memory, one thread. */
export type KernelVariant = 'shared' | 'plain';

/** The exports of assembly/kernel.ts. */
export interface KernelExports {
  runBlock(h: number, blk: number): void;
  reduce(h: number, b0: number, b1: number, t0: number, t1: number): void;
  /** Task `s` of the reduction set up by the host's `setReduce` (item-gradient slices, then the per-item sums). */
  reduceSlice(h: number, s: number): void;
  scratchBytes(): number;
  /** Curvature, rows pass: block `blk` of LLM rows. */
  curvRows(h: number, blk: number): void;
  /** Curvature, items pass: block `blk` of items. */
  curvItems(h: number, blk: number): void;
  curvScratchBytes(): number;
  curv4ScratchBytes(): number;
  /** Task `task` of the block preconditioner's solves (assembly/blockApply.ts, on blockApplyHost.ts's memory). */
  applyBlocks(h: number, task: number): void;
}

/**
 * What a pool pass runs per block: the loss pass, one of the curvature's two passes, a slice of the
 * loss pass's reduction, or a share of the preconditioner's block solves.
 */
export const TASK = { LOSS: 0, CURV_ROWS: 1, CURV_ITEMS: 2, REDUCE: 3, APPLY: 4 } as const;
export type Task = (typeof TASK)[keyof typeof TASK];

/** Run block `blk` of `task` on an instance. */
export function runTask(k: KernelExports, task: Task, h: number, blk: number): void {
  if (task === TASK.LOSS) k.runBlock(h, blk);
  else if (task === TASK.CURV_ROWS) k.curvRows(h, blk);
  else if (task === TASK.CURV_ITEMS) k.curvItems(h, blk);
  else if (task === TASK.REDUCE) k.reduceSlice(h, blk);
  else k.applyBlocks(h, blk);
}

const compiled = new Map<KernelVariant, WebAssembly.Module>();

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The raw bytes of a kernel variant (a valid WebAssembly binary). */
export function kernelBytes(variant: KernelVariant): Uint8Array<ArrayBuffer> {
  return decodeBase64(variant === 'shared' ? KERNEL_SHARED_BASE64 : KERNEL_PLAIN_BASE64);
}

/** The compiled module of a variant, compiled synchronously on first use. */
export function kernelModule(variant: KernelVariant): WebAssembly.Module {
  let m = compiled.get(variant);
  if (m === undefined) {
    m = new WebAssembly.Module(kernelBytes(variant));
    compiled.set(variant, m);
  }
  return m;
}

let binaryCompiled: WebAssembly.Module | null = null;

/** The binary (1PL-4PL) kernel's module (assembly/binary.ts, plain memory), compiled synchronously on first use. */
export function binaryKernelModule(): WebAssembly.Module {
  return (binaryCompiled ??= new WebAssembly.Module(decodeBase64(BINARY_KERNEL_BASE64)));
}

/**
 * Compile both variants asynchronously ahead of use: browsers refuse synchronous compilation of
 * larger modules on the main thread, so a page calls this once before building objectives there.
 */
export async function loadWasmKernel(): Promise<void> {
  for (const v of ['shared', 'plain'] as const) {
    if (compiled.has(v)) continue;
    if (v === 'shared' && !sharedMemorySupported()) continue;
    compiled.set(v, await WebAssembly.compile(kernelBytes(v)));
  }
  binaryCompiled ??= await WebAssembly.compile(decodeBase64(BINARY_KERNEL_BASE64));
}

/** Whether this environment can create a shared WebAssembly memory (browsers: cross-origin isolated pages and their workers). */
export function sharedMemorySupported(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    return true;
  } catch {
    return false;
  }
}
