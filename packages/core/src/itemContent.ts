import { sha256Hex } from './internal/sha256.js';

/**
 * The hash that ties an item's calibration to its text: SHA-256 of the UTF-8 JSON array
 * `[prompt, continuations]` (JSON.stringify: no spaces, non-ASCII kept as is, the same bytes as
 * Python's `json.dumps([p, c], ensure_ascii=False, separators=(",", ":"))`). A bundle item carries
 * it as `contentSha256`; a response whose prompt or continuations hash differently is to another
 * text and is never scored as the calibrated item.
 */
export function itemContentSha256(prompt: string, continuations: readonly string[]): string {
  return sha256Hex(JSON.stringify([prompt, continuations]));
}
