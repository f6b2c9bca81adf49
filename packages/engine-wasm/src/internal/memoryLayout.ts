/**
 * Laying out a kernel's arrays in its wasm memory: the LLM-NRM kernel (kernelHost.ts), the binary
 * kernel (binaryKernel.ts) and the preconditioner's solves (blockApplyHost.ts) each place their
 * header and arrays one after another from the same base.
 */

/** Bytes kept free below the first array (the modules have no data, but the first page is left alone). */
export const MEMORY_BASE = 65536;
/** A wasm memory page, in bytes. */
export const PAGE = 65536;

/** Byte offsets handed out in order, each a multiple of `align` (16 where f32x4 lanes read the arrays). */
export interface BumpAllocator {
  /** The offset of the next `bytes`. */
  alloc(bytes: number): number;
  /** The first byte past everything allocated: the memory's size in bytes before rounding to pages. */
  readonly end: number;
}

export function bumpAllocator(align: number, base = MEMORY_BASE): BumpAllocator {
  let at = base;
  return {
    alloc(bytes: number): number {
      const p = at;
      at += Math.ceil(bytes / align) * align;
      return p;
    },
    get end(): number {
      return at;
    },
  };
}
