// `llm-nrm audit` run in-process through main(): a key-free bank (records without `key`) fitted, then
// audited against a copy of its responses whose keys carry planted swaps (temp dir, seeded fleet).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet } from '@llm-nrm/core';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-audit-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 40, items: 150, seed: 5 });
const { bank, layout, truth } = fleet;
const records = [...bankRecords(bank)];

// The planted swaps: the 5 items whose true key leads every other option at theta 4 by the most
// (so the fleet contradicts the swapped key more surely than any of the simulation's own keys that
// do not lead there), each keyed instead to the option least likely at theta 4.
const TH = 4;
function logitsAt(i: number): number[] {
  const io = bank.itemOffsets[i]!;
  const K = bank.itemOffsets[i + 1]! - io;
  return Array.from({ length: K }, (_, k) => truth[layout.a + io + k]! * TH + truth[layout.c + io + k]!);
}
const lead = bank.items.map((_, i) => {
  const z = logitsAt(i);
  const key = bank.key[i]!;
  return key === z.indexOf(Math.max(...z)) ? z[key]! - Math.max(...z.filter((_, k) => k !== key)) : -Infinity;
});
const planted = new Map<string, number>();
for (const i of lead
  .map((_, i) => i)
  .sort((p, r) => lead[r]! - lead[p]!)
  .slice(0, 5)) {
  const z = logitsAt(i);
  planted.set(bank.items[i]!.id, z.indexOf(Math.min(...z)));
}

const write = (name: string, rs: object[]) => {
  const file = join(tmp.dir, name);
  writeFileSync(file, rs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
};
const keyFree = write(
  'key-free.jsonl',
  records.map(({ key: _key, ...r }) => r),
);
const doubted = write(
  'doubted.jsonl',
  records.map((r) => (planted.has(r.item) ? { ...r, key: planted.get(r.item)! } : r)),
);

describe('llm-nrm audit', () => {
  it('fits a key-free bank, then finds the planted swapped keys of a responses file first', async () => {
    const bundle = join(tmp.dir, 'free.json');
    const fitted = await runCli(['fit', keyFree, '-o', bundle, '-q']);
    expect(fitted.code).toBe(0);
    const b = parseBundle(readFileSync(bundle, 'utf8'), bundle);
    expect(b.fit.keyFree).toBe(150);
    expect(b.items.every((it) => it.keyFree === true)).toBe(true);

    // The bundle alone has no key to check.
    const alone = await runCli(['audit', bundle, '--json', '-q']);
    expect(alone.code).toBe(0);
    const a0 = JSON.parse(alone.out);
    expect(a0.keyFree).toBe(150);
    expect(a0.keys).toEqual([]);

    // Against the doubted keys: the planted swaps lead, each naming the true key as the implied one.
    const out = join(tmp.dir, 'audit.json');
    const res = await runCli(['audit', bundle, doubted, '--json', '-o', out, '-q']);
    expect(res.code).toBe(0);
    const audit = JSON.parse(res.out);
    expect(audit.keyFree).toBe(0);
    expect(new Set(audit.keys.slice(0, 5).map((k: { id: string }) => k.id))).toEqual(new Set(planted.keys()));
    for (const k of audit.keys.slice(0, 5) as { id: string; key: number; implied: number; confidence: number }[]) {
      expect(k.key).toBe(planted.get(k.id));
      expect(k.implied).toBe(bank.key[bank.items.findIndex((it) => it.id === k.id)]);
      expect(k.confidence).toBeGreaterThan(0.99);
    }
    expect(JSON.parse(readFileSync(out, 'utf8')).keys).toEqual(audit.keys);

    // The text table: the most confident planted swap on rank 1.
    const text = await runCli(['audit', bundle, doubted, '--top', '5', '-q']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(new RegExp(`\\n\\s*1\\s+${audit.keys[0].id.replace('/', '\\/')}\\s`));
  });

  it('reads the responses twice without keeping them, and from standard input (kept whole: it cannot be read twice) to the same audit', async () => {
    const bundle = join(tmp.dir, 'free-stdin.json');
    expect((await runCli(['fit', keyFree, '-o', bundle, '-q'])).code).toBe(0);
    const fromFile = await runCli(['audit', bundle, doubted, '--json', '-q']);
    expect(fromFile.code).toBe(0);
    const bin = join(repoRoot, 'packages/cli/dist/bin.js');
    const piped = spawnSync(process.execPath, [bin, 'audit', bundle, '-', '--json', '-q'], { input: readFileSync(doubted), encoding: 'utf8' });
    expect(piped.stderr).toBe('');
    expect(piped.status).toBe(0);
    const a = JSON.parse(fromFile.out);
    const b = JSON.parse(piped.stdout);
    expect(b.responses).toBe('/dev/stdin');
    expect({ ...b, responses: a.responses }).toEqual(a);
    expect(a.keys.length).toBeGreaterThanOrEqual(5);
  });

  it('binary models and evaluate refuse a key-free bank (NO_KEY, naming the items); fit writes nothing', async () => {
    for (const model of ['1pl', '2pl']) {
      const output = join(tmp.dir, `b-${model}.json`);
      const res = await runCli(['fit', keyFree, '--model', model, '-o', output, '-q']);
      // NO_KEY (requireKeys): the model, how many items lack a key, the first, and what fits instead.
      expect(res.code).toBe(1);
      expect(res.err).toContain(
        `${model.toUpperCase()} (correctness) needs a key, but the bank has no key for 150 of 150 items (first "sim/0", "sim/1", "sim/2", "sim/3", "sim/4")`,
      );
      expect(res.err).toContain('--model llm-nrm, nrm or nrm-hard');
      expect(() => readFileSync(output)).toThrow();
    }
    // evaluate's studies score correctness against the key.
    const ev = await runCli(['evaluate', keyFree, '--cv', '2', '--models', 'nrm', '-q']);
    expect(ev.code).toBe(1);
    expect(ev.err).toContain(`evaluate (${keyFree}) needs a key, but the bank has no key for 150 of 150 items (first "sim/0"`);
    // --ignore-key with a binary model is refused before the file is read.
    const res = await runCli(['fit', doubted, '--ignore-key', '--model', '2pl', '-o', join(tmp.dir, 'ig.json'), '-q']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('--model 2pl fits correctness, which needs a key: with --ignore-key use --model llm-nrm, nrm or nrm-hard');
  });

  it('report: the audit as a section; a key-free bundle leaves the keyed sections out and says so', async () => {
    const free = join(tmp.dir, 'free.json');
    if ((await runCli(['fit', keyFree, '-o', free, '-q'])).code !== 0) throw new Error('fit failed');
    const text = await runCli(['report', free]);
    expect(text.code).toBe(0);
    expect(text.out).toContain('No key for 150 of 150 items (a key-free fit)');
    expect(text.out).not.toContain('Item information over binary scoring');
    expect(text.out).not.toContain('Item-quality flags');
    expect(text.out).toContain('Key audit (as `llm-nrm audit` prints it)');
    expect(text.out).toContain('(150 items have no key to check)');
    const json = JSON.parse((await runCli(['report', free, '--json'])).out);
    expect(json).toMatchObject({ keyFree: 150, information: null, flags: null, flagged: null });
    expect(json.audit.keyFree).toBe(150);

    // Fitted with the doubted keys: the report's audit is `llm-nrm audit`'s, row for row.
    const keyed = join(tmp.dir, 'doubted.json');
    if ((await runCli(['fit', doubted, '-o', keyed, '-q'])).code !== 0) throw new Error('fit failed');
    const report = JSON.parse((await runCli(['report', keyed, '--json'])).out);
    const audit = JSON.parse((await runCli(['audit', keyed, '--json', '-q'])).out);
    expect(report.keyFree).toBe(0);
    expect(report.information).not.toBeNull();
    expect(report.audit.keys).toEqual(audit.keys);
    expect(report.audit.keys.slice(0, 5).filter((k: { id: string }) => planted.has(k.id)).length).toBeGreaterThanOrEqual(4);
    const shown = await runCli(['report', keyed, '--flagged', '3']);
    expect(shown.out).toMatch(new RegExp(`Key audit[^]*\\n\\s*1\\s+${audit.keys[0].id.replace('/', '\\/')}\\s`));
  });
});
