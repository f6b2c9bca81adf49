import { sha256Hex } from '../internal/sha256.js';

/**
 * The hash that ties an item's calibration to its text: SHA-256 of the UTF-8 JSON array
 * `[prompt, continuations]` (the bytes of Python's `json.dumps([p, c], ensure_ascii=False,
 * separators=(",", ":"))`). A response whose text hashes differently is never scored as the
 * calibrated item. A multiple-input item passes its `contexts` in place of the prompt (an array, so
 * never equal to a single-prompt item's hash).
 */
export function itemContentSha256(prompt: string | readonly string[], continuations: readonly string[]): string {
  return sha256Hex(JSON.stringify([prompt, continuations]));
}

/**
 * The content hash of a response record's text, or undefined when it records none: its per-option
 * `contexts` with `continuations` (multiple input), else its `prompt` with `continuations`.
 */
export function recordContentSha256(r: { prompt?: unknown; contexts?: unknown; continuations?: unknown }): string | undefined {
  if (!Array.isArray(r.continuations)) return undefined;
  if (Array.isArray(r.contexts)) return itemContentSha256(r.contexts as string[], r.continuations as string[]);
  if (typeof r.prompt === 'string') return itemContentSha256(r.prompt, r.continuations as string[]);
  return undefined;
}
