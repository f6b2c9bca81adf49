import { sha256Hex } from './internal/sha256.js';

/**
 * The hash that ties an item's calibration to its text: SHA-256 of the UTF-8 JSON array
 * `[prompt, continuations]` (JSON.stringify: no spaces, non-ASCII kept as is, the same bytes as
 * Python's `json.dumps([p, c], ensure_ascii=False, separators=(",", ":"))`). A bundle item carries
 * it as `contentSha256`; a response whose prompt or continuations hash differently is to another
 * text and is never scored as the calibrated item.
 *
 * A multiple-input item (lm-eval's winogrande form: option k scored as `continuations[k]` after
 * its own context `contexts[k]`) passes its contexts in place of the prompt: the hash is then of
 * `[contexts, continuations]`, whose first element is an array, so it never equals a single-prompt
 * item's hash.
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
