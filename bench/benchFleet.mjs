// The fleets the tiny-benchmark and adaptive benches run on, by name (one place for them):
//   naep   the NAEP fixture (18 real LLMs x 297 items x 4 rotations)
//   soft   25 LLMs x `items` 4-option items, soft answers, of the real MMLU fleet's shape (realShapedFleet.mjs)
//   hard   29 LLMs x `items` 10-option items, hard answers (an MMLU-Pro fleet)
//   sim    `models` x `items` LLMs of core's simulator (the default fleet of `llm-nrm simulate`)
import { bankFromRecords, simulateFleet } from '@llm-nrm/core';
import { realShapedFleet } from './realShapedFleet.mjs';

/** The NAEP fixture's records, read in place from ../shared (never copied). */
export async function naepRecords() {
  const { readNaepRotations } = await import('@llm-nrm/adapters');
  const dir = new URL('../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;
  const records = [];
  for await (const r of readNaepRotations(dir)) records.push(r);
  return records;
}

/** The bank of a named fleet. */
export async function benchFleet(what, { items = 2000, models = 100 } = {}) {
  if (what === 'naep') return bankFromRecords(await naepRecords()).bank;
  if (what === 'soft') return realShapedFleet({ models: 25, options: 4, hard: false, seed: 1, items });
  if (what === 'hard') return realShapedFleet({ models: 29, options: 10, hard: true, seed: 1, items });
  if (what === 'sim') return simulateFleet({ models, items, seed: 1 }).bank;
  throw new Error(`unknown fleet ${what}: naep, soft, hard or sim`);
}
