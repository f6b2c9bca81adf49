// The output policy as a user meets it (issue 27): every command that writes is run in-process with
// its output pointed at each of its inputs, their folder, the working directory and a non-empty
// folder of someone else's; each is refused with a clear message, and a listing of every file with
// its sha256 is the same after as before. Then the cases of the issue one by one. Small simulated
// inputs (seeded); the working directory is a temp folder (process.chdir: vitest runs forks).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet } from '@llm-nrm/core';
import { writeLmEvalHarness, writeResponses } from '@llm-nrm/adapters';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-output-policy-');
const root = tmp.dir;
// home/lb holds the inputs; the commands run from home/lb/sub (so `..` is the inputs' folder).
const lb = join(root, 'home', 'lb');
const cwd = join(lb, 'sub');
const foreign = join(root, 'foreign');
const bundle = join(lb, 'b.json');
const responses = join(lb, 'r.jsonl');
const itemList = join(lb, 'ids.txt');
const tiny = join(lb, 'tiny');
const lmEval = join(lb, 'lm-eval');
let startDir = '';

/** Every file and folder under `dir` with the sha256 of each file (mtimes are not compared). */
function snapshot(dir: string = root): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (statSync(p).isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(p);
      } else out[rel] = `${statSync(p).size} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  startDir = process.cwd();
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(root, 'home', 'precious.txt'), 'do not touch\n');
  writeFileSync(join(lb, 'precious.txt'), 'do not touch either\n');
  writeFileSync(join(cwd, 'notes.md'), '# my notes\n');
  // Someone else's folder: a git repository with a Pages docs/ folder.
  mkdirSync(join(foreign, '.git'), { recursive: true });
  mkdirSync(join(foreign, 'docs'));
  writeFileSync(join(foreign, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(foreign, 'README.md'), '# a project\n');
  writeFileSync(join(foreign, 'docs', 'guide.md'), '# guide\n');
  const fleet = simulateFleet({ models: 6, items: 24, seed: 11 });
  await writeResponses(bankRecords(fleet.bank), responses);
  await writeLmEvalHarness(bankRecords(fleet.bank), lmEval);
  expect((await runCli(['fit', responses, '-o', bundle, '-q'])).code).toBe(0);
  writeFileSync(
    itemList,
    fleet.bank.items
      .slice(0, 4)
      .map((it) => it.id)
      .join('\n') + '\n',
  );
  const pub = await runCli([
    'publish',
    bundle,
    '--responses',
    responses,
    '--items',
    '4',
    '--render-prompt',
    '--allow-placeholder-prompts',
    '--harness',
    'lm-eval',
    '-o',
    tiny,
    '-q',
  ]);
  expect(pub.err).toBe('');
  expect(pub.code).toBe(0);
  process.chdir(cwd);
}, 60_000);
afterAll(() => {
  process.chdir(startDir);
  tmp.cleanup();
});

/** A command that writes: its arguments with the output at `target`, and its inputs. */
interface Writer {
  name: string;
  args: (target: string) => string[];
  inputs: string[];
}

const writers: Writer[] = [
  { name: 'convert', args: (t) => ['convert', responses, '-o', t], inputs: [responses] },
  { name: 'convert (lm-eval folder)', args: (t) => ['convert', lmEval, '-o', t], inputs: [lmEval] },
  { name: 'fit', args: (t) => ['fit', responses, '-o', t], inputs: [responses] },
  { name: 'score', args: (t) => ['score', bundle, responses, '-o', t], inputs: [bundle, responses] },
  {
    name: 'score (published folder)',
    args: (t) => ['score', tiny, responses, '-o', t],
    inputs: [tiny, join(tiny, 'bank.json'), join(tiny, 'items.jsonl'), responses],
  },
  { name: 'extend', args: (t) => ['extend', bundle, responses, '-o', t], inputs: [bundle, responses] },
  { name: 'select', args: (t) => ['select', bundle, '--items', '3', '--responses', responses, '-o', t], inputs: [bundle, responses] },
  { name: 'simulate --truth', args: (t) => ['simulate', '--models', '3', '--items', '4', '-o', responses, '--truth', t], inputs: [responses] },
  {
    name: 'publish --force',
    args: (t) => ['publish', bundle, '--responses', responses, '--item-list', itemList, '--render-prompt', '--allow-placeholder-prompts', '--force', '-o', t],
    inputs: [bundle, responses, itemList],
  },
  {
    name: 'publish --forms 2 --force',
    args: (t) => [
      'publish',
      bundle,
      '--responses',
      responses,
      '--items',
      '2',
      '--forms',
      '2',
      '--render-prompt',
      '--allow-placeholder-prompts',
      '--force',
      '-o',
      t,
    ],
    inputs: [bundle, responses],
  },
  { name: 'leaderboard', args: (t) => ['leaderboard', bundle, '--responses', responses, '--tiny', tiny, '-o', t], inputs: [bundle, responses, tiny] },
  { name: 'demo --out', args: (t) => ['demo', '--models', '3', '--items', '8', '--out', t], inputs: [] },
];

// The inputs' folder as `..`, the working directory as `.` and as its absolute path.
const places = ['..', '.', cwd, join(root, 'home'), foreign, join(foreign, 'docs')];

describe('no command destroys or changes a file that existed before (fuzz over outputs)', () => {
  for (const w of writers) {
    it(`${w.name}: -o at each input, their folder, the working directory, a foreign folder`, async () => {
      for (const target of [...w.inputs, ...places]) {
        const before = snapshot();
        const { code, err } = await runCli([...w.args(target), '-q']);
        expect({ target, code }).toEqual({ target, code: 1 });
        // Each refusal says what was refused and how to go on.
        expect(err).toMatch(/refused|is also an input|unknown output extension/);
        expect(err).toMatch(/choose|name a file|use \.jsonl/);
        expect(snapshot()).toEqual(before);
      }
    });
  }
});

describe('the cases of issue 27', () => {
  it('leaderboard --responses takes the lm-eval folder fit takes; the preview hint serves the folder built', async () => {
    const site = join(root, 'site');
    const lmBundle = join(root, 'lm-bundle.json');
    expect((await runCli(['fit', lmEval, '-o', lmBundle, '-q'])).code).toBe(0);
    const { code, err } = await runCli(['leaderboard', lmBundle, '--responses', lmEval, '--title', 'Mine', '-o', site]);
    expect(err).toMatch(/read 144 responses from .*lm-eval: 6 calibrated LLMs/);
    expect(code).toBe(0);
    // Rebuilding from the bundle alone would drop what --responses and --title added.
    expect(err).toContain(`preview it: llm-nrm leaderboard ${site} --serve`);
    expect(err).not.toMatch(/preview it: llm-nrm leaderboard \S*b\.json/);
    expect(JSON.parse(readFileSync(join(site, 'data', 'manifest.json'), 'utf8'))).toMatchObject({ hasResponses: true, title: 'Mine' });
    // A site llm-nrm built is rebuilt in place; of the old one only what it wrote is removed.
    const again = await runCli(['leaderboard', lmBundle, '-o', site, '-q']);
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(join(site, 'data', 'manifest.json'), 'utf8'))).toMatchObject({ hasResponses: false });
    expect(readdirSync(root).sort()).toEqual(['foreign', 'home', 'lm-bundle.json', 'site']);
  });

  it('publish --force replaces a package it wrote, and nothing else', async () => {
    const out = join(root, 'pkg');
    const args = [
      'publish',
      bundle,
      '--responses',
      responses,
      '--item-list',
      itemList,
      '--render-prompt',
      '--allow-placeholder-prompts',
      '--harness',
      'lm-eval',
      '-o',
      out,
      '-q',
    ];
    const first = await runCli(args);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    const before = snapshot(out);
    const without = await runCli(args);
    expect(without.code).toBe(1);
    expect(without.err).toMatch(/it exists \(written by llm-nrm publish\); pass --force to replace it/);
    expect(snapshot(out)).toEqual(before);
    expect((await runCli([...args, '--force'])).code).toBe(0);
    writeFileSync(join(out, 'mine.txt'), 'kept');
    const foreignFile = await runCli([...args, '--force']);
    expect(foreignFile.code).toBe(1);
    expect(foreignFile.err).toMatch(/llm-nrm publish wrote it, but it now also holds 1 entry llm-nrm did not write \(first "mine\.txt"\); nothing was changed/);
    expect(readFileSync(join(out, 'mine.txt'), 'utf8')).toBe('kept');
  });
});
