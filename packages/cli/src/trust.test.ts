// The reported cases of "trust on messy real input", end to end through the CLI on the real
// fixtures (damaged or rearranged copies and links made here, in a temp folder).
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet } from '@llm-nrm/core';
import { readResponses } from '@llm-nrm/adapters';
import { fixture, repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-trust-');
afterAll(() => tmp.cleanup());

async function count(path: string): Promise<number> {
  let n = 0;
  for await (const _ of readResponses(path)) n++;
  return n;
}

const fleet = simulateFleet({ models: 6, items: 24, seed: 4 });
const simLines = [...bankRecords(fleet.bank)].map((r) => JSON.stringify(r));

describe('inputs are never overwritten, outputs never read back', () => {
  it('convert <folder> -o <folder>/all.jsonl three times gives the same file', async () => {
    const dir = join(tmp.dir, 'grow');
    mkdirSync(dir);
    writeFileSync(join(dir, 'part.jsonl'), simLines.join('\n') + '\n');
    const out = join(dir, 'all.jsonl');
    const sizes: number[] = [];
    for (let t = 0; t < 3; t++) {
      const res = await runCli(['convert', dir, '-o', out, '-q']);
      expect(res.code).toBe(0);
      sizes.push(await count(out));
    }
    expect(sizes).toEqual([simLines.length, simLines.length, simLines.length]);
    // fit <folder> reads neither the converted copy twice nor a bundle saved there.
    const bundle = join(dir, 'bundle.json');
    expect((await runCli(['fit', dir, '-o', bundle, '-q', '--max-iterations', '20'])).code).toBe(0);
    const again = await runCli(['fit', dir, '-o', join(dir, 'bundle2.json'), '--max-iterations', '20']);
    expect(again.code).toBe(0);
    expect(again.err).toContain(`${fleet.bank.models.length} LLMs x ${fleet.bank.items.length} items`);
    expect(parseBundle(readFileSync(bundle, 'utf8')).provenance.inputs!.map((i) => i.path)).toEqual([join(dir, 'part.jsonl')]);
  });

  it('fit r.jsonl -o r.jsonl is refused and the input kept; -o - writes the bundle to stdout', async () => {
    const r = join(tmp.dir, 'r.jsonl');
    writeFileSync(r, simLines.join('\n') + '\n');
    const before = readFileSync(r, 'utf8');
    const res = await runCli(['fit', r, '-o', r]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/-o .*r\.jsonl is also an input/);
    expect(readFileSync(r, 'utf8')).toBe(before);
    const link = join(tmp.dir, 'r-link.jsonl');
    symlinkSync(r, link);
    expect((await runCli(['convert', r, '-o', link])).code).toBe(1);
    const out = await runCli(['fit', r, '-o', '-', '--max-iterations', '20']);
    expect(out.code).toBe(0);
    expect(parseBundle(out.out).llms).toHaveLength(fleet.bank.models.length);
    expect(out.err).toMatch(/leaderboard/);
  });

  it('a bundle given where responses belong: the message says the arguments look swapped', async () => {
    const r = join(tmp.dir, 'r.jsonl');
    const b = join(tmp.dir, 'swap-bundle.json');
    expect((await runCli(['fit', r, '-o', b, '-q', '--max-iterations', '10'])).code).toBe(0);
    const res = await runCli(['fit', b, '-o', join(tmp.dir, 'x.json')]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/swap-bundle\.json: this is an llm-nrm output .*were the arguments swapped\?/);
    const score = await runCli(['score', r, b]);
    expect(score.code).toBe(1);
    expect(score.err).toMatch(/r\.jsonl is not a calibration bundle but .*swap-bundle\.json is: were the arguments swapped\?/);
  });

  it('- reads standard input and a UTF-8 BOM is accepted (the built bin)', () => {
    const bin = join(repoRoot, 'packages/cli/dist/bin.js');
    const res = spawnSync(process.execPath, [bin, 'convert', '-', '-o', '-', '-q'], { input: '\uFEFF' + simLines.join('\n') + '\n', encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(simLines.length);
    const bad = spawnSync(process.execPath, [bin, 'fit', '-', '-o', join(tmp.dir, 'stdin.json')], {
      input: simLines[0] + '\n{"model": "m", "item"\n',
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^llm-nrm: -:2: malformed JSON/);
  });
});

describe('pipes: read like files, kept whole where a command reads twice', () => {
  it("bash's <(cat r.jsonl): convert, fit and audit give what the file gives; a damaged pipe names itself and its line", () => {
    const bin = join(repoRoot, 'packages/cli/dist/bin.js');
    const file = join(tmp.dir, 'piped.jsonl');
    writeFileSync(file, simLines.join('\n') + '\n');
    // Process substitution hands the command a /dev/fd path to a pipe, which cannot be sought or read twice.
    const sh = (args: string) => spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" ${args}`], { encoding: 'utf8' });
    const viaPipe = join(tmp.dir, 'via-pipe.parquet');
    const viaFile = join(tmp.dir, 'via-file.parquet');
    expect(sh(`convert <(cat "${file}") -o "${viaPipe}" -q`).status).toBe(0);
    expect(sh(`convert "${file}" -o "${viaFile}" -q`).status).toBe(0);
    expect(readFileSync(viaPipe)).toEqual(readFileSync(viaFile));
    const bundle = join(tmp.dir, 'piped-bundle.json');
    const fitted = sh(`fit <(cat "${file}") -o "${bundle}" -q --max-iterations 30`);
    expect(fitted.stderr).toBe('');
    expect(fitted.status).toBe(0);
    const fromFile = sh(`audit "${bundle}" "${file}" --json -q`);
    const fromPipe = sh(`audit "${bundle}" <(cat "${file}") --json -q`);
    expect(fromPipe.status).toBe(0);
    const { responses: _a, ...a } = JSON.parse(fromFile.stdout);
    const { responses: _b, ...b } = JSON.parse(fromPipe.stdout);
    expect(b).toEqual(a);
    // An id naming two contents makes the streaming read start again whole: the pipe's copy is read twice.
    const versions = join(tmp.dir, 'versions.jsonl');
    const rows = [
      { model: 'a', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.7, 0.3] },
      { model: 'b', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.6, 0.4] },
      { model: 'a', item: 'q1', key: 1, options: ['u', 'v', 'w'], probs: [0.2, 0.5, 0.3] },
      { model: 'b', item: 'q1', key: 1, options: ['u', 'v', 'w'], probs: [0.1, 0.8, 0.1] },
      { model: 'a', item: 'q2', key: 0, probs: [0.6, 0.4] },
      { model: 'b', item: 'q2', key: 0, probs: [0.3, 0.7] },
    ];
    writeFileSync(versions, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const [vPipe, vFile] = [join(tmp.dir, 'v-pipe.json'), join(tmp.dir, 'v-file.json')];
    expect(sh(`fit <(cat "${versions}") -o "${vPipe}" -q --max-iterations 20`).status).toBe(0);
    expect(sh(`fit "${versions}" -o "${vFile}" -q --max-iterations 20`).status).toBe(0);
    const items = (p: string) => parseBundle(readFileSync(p, 'utf8')).items.map((it) => it.id);
    expect(items(vPipe)).toEqual(items(vFile));
    expect(items(vPipe).filter((id) => id.startsWith('q1#'))).toHaveLength(2);
    const damaged = sh(`convert <(head -n 3 "${file}"; echo '{"model": "m", "item"') -o "${join(tmp.dir, 'never.jsonl')}" -q`);
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toMatch(/^llm-nrm: \/dev\/fd\/\d+:4: malformed JSON/);
    expect(existsSync(join(tmp.dir, 'never.jsonl'))).toBe(false);
  });
});

describe('damage is an error unless asked otherwise, and never silent', () => {
  it('a cut samples_*.jsonl.gz: exit 1 naming the file, no output; --skip-invalid lists the loss on stderr', async () => {
    const dir = join(tmp.dir, 'cut');
    mkdirSync(dir);
    const gz = gzipSync(readFileSync(fixture('lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl')));
    const cut = join(dir, 'samples_winogrande_2024-12-23T14-29-31.806745.jsonl.gz');
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length / 2)));
    writeFileSync(join(dir, 'more.jsonl'), simLines.join('\n') + '\n');
    const out = join(tmp.dir, 'cut.jsonl');
    const strict = await runCli(['convert', dir, '-o', out]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain(cut);
    expect(strict.err).toMatch(/--skip-invalid/);
    expect(existsSync(out)).toBe(false);
    const lenient = await runCli(['convert', dir, '-o', out, '--skip-invalid']);
    expect(lenient.code).toBe(0);
    expect(lenient.out).toBe('');
    expect(lenient.err).toMatch(new RegExp(`skipped 1 unit in 1 file:\\n  1 in ${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('an input with nothing usable is an error, and writes nothing', async () => {
    const out = join(tmp.dir, 'nothing.jsonl');
    const res = await runCli(['convert', fixture('helm/every_eval_ever/narrative_qa-model=openai_gpt2'), '-o', out, '--skip-invalid']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/no usable multiple-choice response/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('harness output straight into fit; the design must support the ranking', () => {
  it('HELM: gpt2 and pythia share no items, so neither is ranked, and the bundle says why', async () => {
    const b = join(tmp.dir, 'helm.json');
    const res = await runCli(['fit', fixture('helm/every_eval_ever'), '-o', b, '--max-iterations', '50']);
    expect(res.code).toBe(0);
    const bundle = parseBundle(readFileSync(b, 'utf8'));
    expect(bundle.warnings!.map((w) => w.code)).toContain('NO_SHARED_ITEMS');
    expect(res.out).toMatch(/2 not ranked/);
    expect(res.out).not.toMatch(/\n\s*1\s+/);
    expect(res.out).toMatch(/no two LLMs answered a common item/);
    expect(res.err).toMatch(/not a multiple-choice run/);
  });

  it('an Inspect .eval archive is read as convert reads it, not as "malformed JSON"', async () => {
    const res = await runCli([
      'fit',
      fixture('inspect/inspect_ai-tests/mmlu-summary-choices.eval'),
      '-o',
      join(tmp.dir, 'eval.json'),
      '--max-iterations',
      '20',
    ]);
    expect(res.err).not.toMatch(/malformed JSON/);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/leaderboard/);
    expect(parseBundle(readFileSync(join(tmp.dir, 'eval.json'), 'utf8')).warnings!.map((w) => w.code)).toContain('SINGLE_LLM');
  });

  it('two winogrande data sets numbering items alike: fit splits the colliding ids and never merges them', async () => {
    const dir = join(tmp.dir, 'wino');
    mkdirSync(join(dir, 'gpt-4o'), { recursive: true });
    mkdirSync(join(dir, 'llama'));
    const gpt = fixture('lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl');
    symlinkSync(gpt, join(dir, 'gpt-4o', 'samples_winogrande_2024-12-23T14-29-31.806745.jsonl'));
    symlinkSync(
      fixture('lm-eval-harness/lm-eval-pr1567-slurmevals/SlurmEvals/llama13/winogrande_write_out_info.json'),
      join(dir, 'llama', 'winogrande_write_out_info.json'),
    );
    const b = join(tmp.dir, 'wino.json');
    // gpt-4o left some generated answers unparsable: --drop-empty leaves those items out.
    const res = await runCli(['fit', dir, '-o', b, '--max-iterations', '30', '--drop-empty']);
    expect(res.code).toBe(0);
    expect(res.err).toMatch(/warning: \d+ item ids name different content/);
    expect(res.err).toMatch(/winogrande\/0: 2 versions: winogrande\/0#[0-9a-z]{6} .*"Sarah"/);
    const bundle = parseBundle(readFileSync(b, 'utf8'));
    // The ten colliding ids are gone; where both versions were answered, both are items.
    expect(bundle.items.filter((it) => /^winogrande\/\d$/.test(it.id))).toEqual([]);
    const byBase = new Map<string, number>();
    for (const it of bundle.items) if (it.id.includes('#')) byBase.set(it.id.split('#')[0]!, (byBase.get(it.id.split('#')[0]!) ?? 0) + 1);
    expect([...byBase.values()].some((n) => n === 2)).toBe(true);
    expect(bundle.warnings!.map((w) => w.code)).toEqual(expect.arrayContaining(['ITEM_VERSIONS', 'NO_SHARED_ITEMS']));
  });
});

describe('messages', () => {
  it('an LLM with every answer missing names the --drop-empty flag', async () => {
    const f = join(tmp.dir, 'empty-llm.jsonl');
    writeFileSync(
      f,
      [...simLines, JSON.stringify({ model: 'mute', item: 'sim/0', key: 0, choice: null, nOptions: fleet.bank.items[0]!.nOptions })].join('\n') + '\n',
    );
    const res = await runCli(['fit', f, '-o', join(tmp.dir, 'e.json')]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/model "mute" has no observed cell .*--drop-empty/);
    expect(res.err).not.toMatch(/pass dropEmpty/);
  });

  it('the NAEP baselines note names a flag that exists, and the flag keeps them', async () => {
    const naep = fixture('response-matrices/mainlp-llm-psychometrics');
    const plain = await runCli(['convert', naep, '-o', join(tmp.dir, 'naep.jsonl')]);
    expect(plain.code).toBe(0);
    expect(plain.err).toMatch(/baseline pseudo-models left out \(--include-baselines keeps them\)/);
    const kept = await runCli(['convert', naep, '--include-baselines', '-o', join(tmp.dir, 'naep-all.jsonl'), '-q']);
    expect(kept.code).toBe(0);
    const models = new Set<string>();
    for await (const r of readResponses(join(tmp.dir, 'naep-all.jsonl'))) models.add(r.model);
    expect(models.has('OracleBaseline') && models.has('UniformBaseline')).toBe(true);
  });

  it('-o /dev/stdout writes through the device link, never replacing it (the built bin)', () => {
    const bin = join(repoRoot, 'packages/cli/dist/bin.js');
    const r = join(tmp.dir, 'r.jsonl');
    const res = spawnSync(process.execPath, [bin, 'convert', r, '-o', '/dev/stdout', '-q'], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(simLines.length);
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
  });

  it('no temp files are left in the output folder', () => {
    expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
