import { describe, expect, it } from 'vitest';
import { bankFromRecords, fit, type ResponseRecord } from '@llm-nrm/core';
import { fixture } from '@llm-nrm/tooling/test';
import { newReport } from '../reader.js';
import { readNaepRotations } from './readNaepRotations.js';

const dir = fixture('response-matrices/mainlp-llm-psychometrics');

async function read(options: Parameters<typeof readNaepRotations>[1] = {}): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readNaepRotations(dir, options)) out.push(r);
  return out;
}

describe('readNaepRotations', () => {
  it('reads 18 models x 297 items x 4 rotations into a bank core accepts', async () => {
    const report = newReport();
    const records = await read({ report });
    expect(records.length).toBe(21_384);
    expect(report.records).toBe(21_384);
    // 10 history response rows per model have no item: 18 models x 10, each reported.
    expect(report.skipped.length).toBe(180);
    expect(report.skipped[0]!.reason).toMatch(/^item_id "NAEP-H.*" not in naep-history-items\.jsonl$/);
    // ...once: the skipped report counts them per file, so no note repeats them file by file.
    expect(report.notes).toEqual(['baseline pseudo-models left out (--include-baselines keeps them): OracleBaseline, UniformBaseline']);
    const { bank } = bankFromRecords(records);
    expect(bank.models.length).toBe(18);
    expect(bank.items.length).toBe(297);
    expect(bank.colItem.length).toBe(1188);
    expect(new Set(records.map((r) => r.benchmark))).toEqual(new Set(['economics', 'history']));
    // ...and core fits it: LLM-NRM (rotations separate position from content) beats soft NRM.
    const full = fit(bank, { model: 'llm-nrm', standardErrors: false });
    const nrm = fit(bank, { model: 'nrm', standardErrors: false });
    expect(full.converged && nrm.converged).toBe(true);
    expect(full.loss).toBeLessThan(nrm.loss);
  });

  it('places original option i at (i - r) mod 4 in rotation r', async () => {
    const records = await read({ includeBaselines: true });
    expect(records.length).toBe(20 * 297 * 4);
    const oracle = records.filter((r) => r.model === 'OracleBaseline' && r.item === records[0]!.item);
    expect(oracle.map((r) => r.position)).toEqual([
      [0, 1, 2, 3],
      [3, 0, 1, 2],
      [2, 3, 0, 1],
      [1, 2, 3, 0],
    ]);
    // The oracle's logit 1 sits on the key in content order under every rotation.
    for (const r of oracle) expect(r.logprobs!.indexOf(1)).toBe(r.key);
  });

  it('carries the stem from the item file as the prompt, and where the item came from', async () => {
    const records = await read();
    const r = records.find((x) => x.item === 'history/NAEP-H110201')!;
    expect(r.prompt).toBe('What were European explorers such as Henry Hudson looking for when they sailed the coast and rivers of North America in the 1600s?');
    // No continuations: the rotated prompts the logits were read from are not in the fixture.
    expect(r.continuations).toBeUndefined();
    expect(r.source).toEqual({ harness: 'naep', task: 'history', docId: 'NAEP-H110201' });
    expect(records.every((x) => x.source?.harness === 'naep' && typeof x.prompt === 'string')).toBe(true);
  });
});
