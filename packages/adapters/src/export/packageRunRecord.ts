import type { ResponseRecord } from '@llm-nrm/core';

/**
 * A tiny package run's record as it is scored (`llm-nrm score <package>` and the site's score page):
 * only lm-eval runs the package's exact text, so only its records keep the prompt (and continuations,
 * contexts) checked against the package's items; Inspect and OpenAI evals render their own prompt
 * around the item's, and theirs would never match.
 */
export function packageRunRecord(r: ResponseRecord): ResponseRecord {
  if (r.source?.harness === 'lm-eval') return r;
  const out = { ...r };
  delete out.prompt;
  delete out.continuations;
  delete out.contexts;
  return out;
}
