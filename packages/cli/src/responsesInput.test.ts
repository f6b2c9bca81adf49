// Issue 31: one input contract. `evaluate` and `select --responses` take the file `fit` took: damaged
// records skipped under --skip-invalid, and an item id with two contents split into the bundle's
// `<id>#<hash>` versions (matched by content in a file that holds only one of them).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../test/runCli.js';
import { applyBundleVersions } from './responsesInput.js';

const tmp = tempDir('llm-nrm-cli-input-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 14, items: 40, seed: 8 });
const texts = (k: number, tag: string) => Array.from({ length: k }, (_, i) => `${tag} option ${i}`);
// sim/0 is shown with other option texts to the second half of the fleet: a second version.
const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
  ...r,
  options: texts(r.probs!.length, r.item === 'sim/0' && fleet.bank.models.indexOf(r.model) >= 7 ? 'edited' : 'first'),
}));
const lines = records.map((r) => JSON.stringify(r));
lines.splice(5, 0, '{"model": "cut-off", "item": "sim/1", "probs": [0.5,');
const file = join(tmp.dir, 'r.jsonl');
writeFileSync(file, lines.join('\n') + '\n');
// A new LLM's file with only the edited version of sim/0: no conflict in it, so no split of its own.
const newcomer = records.filter((r) => r.model === fleet.bank.models[10]).map((r) => ({ ...r, model: 'newcomer' }));
const single = join(tmp.dir, 'newcomer.jsonl');
writeFileSync(single, newcomer.map((r) => JSON.stringify(r)).join('\n') + '\n');
const bundlePath = join(tmp.dir, 'bundle.json');

beforeAll(async () => {
  const res = await runCli(['fit', file, '--skip-invalid', '-o', bundlePath, '-q']);
  expect(res.code).toBe(0);
}, 60_000);

describe('responses read as fit reads them', () => {
  it('the bundle split sim/0 into two versions', () => {
    const ids = parseBundle(readFileSync(bundlePath, 'utf8'), bundlePath).items.map((it) => it.id);
    expect(ids.filter((id) => id.startsWith('sim/0#'))).toHaveLength(2);
  });

  it('evaluate stops at the damaged record naming its line, and with --skip-invalid evaluates the rest', async () => {
    const refused = await runCli(['evaluate', file, '--cv', '2', '--models', 'nrm', '-q']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${file}:6`);
    const res = await runCli(['evaluate', file, '--cv', '2', '--models', 'nrm', '--skip-invalid', '--json', '-q']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out).cv.cells).toBe(14 * 40);
  }, 60_000);

  it('select --responses takes the file fit took, and a file holding one version of a split item', async () => {
    const same = await runCli(['select', bundlePath, '--items', '10', '--responses', file, '--skip-invalid', '--json', '-q']);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.out).check.llms).toBe(14);
    const one = await runCli(['select', bundlePath, '--items', '10', '--responses', single, '--json', '-q']);
    expect(one.err).toBe('');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.out).check.models).toEqual(['newcomer']);
  }, 60_000);

  it('applyBundleVersions maps by content hash, else by the one version with the key and option count', () => {
    const bundle = parseBundle(readFileSync(bundlePath, 'utf8'), bundlePath);
    const edited = newcomer.find((r) => r.item === 'sim/0')!;
    const { records: out, renamed } = applyBundleVersions([edited, newcomer.find((r) => r.item === 'sim/2')!], bundle.items);
    expect(renamed).toBe(1);
    expect(out[0]!.item).toMatch(/^sim\/0#/);
    expect(out[1]!.item).toBe('sim/2');
    const first = records.find((r) => r.item === 'sim/0' && r.model === fleet.bank.models[0])!;
    expect(applyBundleVersions([first], bundle.items).records[0]!.item).not.toBe(out[0]!.item);
  });
});
