import { LlmNrmError, randomSource, type ResponseBank } from '@llm-nrm/core';
import { shuffleInPlace } from '@llm-nrm/core/engine';
import { randomPermutation } from './internal/randomPermutation.js';

/**
 * Assign every observed cell (LLM x column) to one of k folds (paper.md, Table 1: 5-fold CV over
 * LLM x item cells): the observed cells are shuffled (seeded) and dealt round-robin, so the folds
 * partition them exactly and differ in size by at most one. Returns J x C fold ids, 255 where
 * unobserved.
 */
export function cellFolds(bank: ResponseBank, k: number, seed = 1): Uint8Array {
  if (!Number.isInteger(k) || k < 2 || k > 254) throw new LlmNrmError('INVALID_OPTION', `invalid fold count: ${k} (2 to 254)`);
  const obs = bank.observed;
  const folds = new Uint8Array(obs.length).fill(255);
  let n = 0;
  for (let t = 0; t < obs.length; t++) if (obs[t]) n++;
  const cells = new Int32Array(n);
  n = 0;
  for (let t = 0; t < obs.length; t++) if (obs[t]) cells[n++] = t;
  shuffleInPlace(cells, randomSource(seed));
  for (let t = 0; t < n; t++) folds[cells[t]!] = t % k;
  return folds;
}

/**
 * Observed mask of the cells of a fold assignment (`cellFolds`) outside fold f ('train') or in it
 * ('test').
 */
export function foldMask(folds: Uint8Array, f: number, which: 'train' | 'test'): Uint8Array {
  const m = new Uint8Array(folds.length);
  if (which === 'test') for (let t = 0; t < folds.length; t++) m[t] = folds[t] === f ? 1 : 0;
  else for (let t = 0; t < folds.length; t++) m[t] = folds[t] !== 255 && folds[t] !== f ? 1 : 0;
  return m;
}

/** Assign J LLMs to k folds (seeded shuffle, round-robin): fold id per LLM. */
export function llmFolds(nModels: number, k: number, seed = 1): Int32Array {
  if (!Number.isInteger(k) || k < 2 || k > nModels) throw new LlmNrmError('INVALID_OPTION', `invalid fold count: ${k} (2 to ${nModels} LLMs)`);
  const order = randomPermutation(nModels, randomSource(seed));
  const out = new Int32Array(nModels);
  for (let t = 0; t < nModels; t++) out[order[t]!] = t % k;
  return out;
}
