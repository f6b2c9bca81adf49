import type { ResponseRecord } from '@llm-nrm/core';

/**
 * One record as a JSON Lines line (no newline), fields in a fixed order. Unreported options
 * (`-Infinity` in `logprobs`) are written as the string `"-Infinity"`, since JSON has no infinity
 * and `null` would read as "missing" to most tools; the reader accepts both. Numbers use
 * JavaScript's shortest round-trip form, so float64 values read back bit for bit.
 */
export function formatResponseRecord(r: ResponseRecord): string {
  const o: Record<string, unknown> = { model: r.model, item: r.item };
  if (r.benchmark !== undefined) o.benchmark = r.benchmark;
  if (r.key !== undefined) o.key = r.key;
  if (r.options !== undefined) o.options = r.options;
  if (r.probs !== undefined) o.probs = r.probs;
  if (r.logprobs !== undefined) o.logprobs = r.logprobs.map((v) => (v === -Infinity ? '-Infinity' : v));
  if (r.choice !== undefined) o.choice = r.choice;
  if (r.nOptions !== undefined) o.nOptions = r.nOptions;
  if (r.position !== undefined) o.position = r.position;
  if (r.leakage !== undefined) o.leakage = r.leakage;
  if (r.prompt !== undefined) o.prompt = r.prompt;
  if (r.continuations !== undefined) o.continuations = r.continuations;
  if (r.contexts !== undefined) o.contexts = r.contexts;
  if (r.source !== undefined) o.source = r.source;
  return JSON.stringify(o);
}
