// The output policy on real folders (temp dirs): what it writes, what it refuses, and that a
// refusal changes nothing (a listing with content hashes is compared before and after).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@llm-nrm/tooling/test';
import { OUTPUT_MARKER, assertOutputIsNotInput, removeStaleFolderTemps, writeFileOutput, writeFolderOutput } from './outputPolicy.js';

const tmp = tempDir('llm-nrm-output-policy-');
afterAll(() => tmp.cleanup());

/** Every file and folder under `dir` with the sha256 of each file's content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (statSync(p).isDirectory()) {
        out[rel + '/'] = 'dir';
        walk(p);
      } else out[rel] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

let n = 0;
function fresh(files: Record<string, string> = {}): string {
  const dir = join(tmp.dir, `case-${n++}`);
  mkdirSync(dir, { recursive: true });
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

const build =
  (files: Record<string, string>) =>
  async (tmpDir: string): Promise<string[]> => {
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(join(tmpDir, p, '..'), { recursive: true });
      await writeFile(join(tmpDir, p), text);
    }
    return Object.keys(files);
  };

describe('writeFolderOutput', () => {
  it('writes an absent folder and an empty one, with a marker listing every file', async () => {
    const root = fresh();
    const absent = join(root, 'new', 'site');
    const res = await writeFolderOutput(absent, build({ 'index.html': 'a', 'data/x.json': '1' }), { command: 'leaderboard', inputs: [] });
    expect(res).toMatchObject({ replaced: false, files: ['data/x.json', 'index.html'] });
    const marker = JSON.parse(readFileSync(join(absent, OUTPUT_MARKER), 'utf8'));
    expect(marker).toMatchObject({ tool: 'llm-nrm', command: 'leaderboard', files: ['data/x.json', 'index.html'] });
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await writeFolderOutput(empty, build({ 'a.txt': 'a' }), { command: 'publish', inputs: [] });
    expect(readFileSync(join(empty, 'a.txt'), 'utf8')).toBe('a');
    // No temp folder is left beside them.
    expect(readdirSync(root).sort()).toEqual(['empty', 'new']);
  });

  it('replaces a folder it wrote whole, only with replace, and removes only the files its marker lists', async () => {
    const root = fresh();
    const dir = join(root, 'out');
    await writeFolderOutput(dir, build({ 'old.json': 'o', 'sub/s.json': 's' }), { command: 'publish', inputs: [] });
    const before = snapshot(root);
    await expect(writeFolderOutput(dir, build({ 'new.json': 'n' }), { command: 'publish', inputs: [], forceFlag: '--force' })).rejects.toThrow(
      /refused -o .*out: it exists \(written by llm-nrm publish\); pass --force to replace it, or choose an absent or empty folder/,
    );
    expect(snapshot(root)).toEqual(before);
    const res = await writeFolderOutput(dir, build({ 'new.json': 'n' }), { command: 'publish', inputs: [], replace: true });
    expect(res.replaced).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([OUTPUT_MARKER, 'new.json']);
    expect(readdirSync(root)).toEqual(['out']);
  });

  it('refuses a foreign non-empty folder, a marked folder with foreign files, an input inside, the cwd, a file: nothing changes', async () => {
    const git = fresh({ '.git/HEAD': 'ref: refs/heads/main\n', 'README.md': '# mine\n' });
    const marked = fresh({ 'a.json': '1', 'guide.md': 'my notes' });
    writeFileSync(join(marked, OUTPUT_MARKER), JSON.stringify({ tool: 'llm-nrm', command: 'leaderboard', createdAt: '', files: ['a.json'] }));
    const holding = fresh({ 'b.json': '{}', 'r.jsonl': '' });
    writeFileSync(join(holding, OUTPUT_MARKER), JSON.stringify({ tool: 'llm-nrm', command: 'publish', createdAt: '', files: ['b.json', 'r.jsonl'] }));
    const file = join(fresh({ 'f.txt': 'x' }), 'f.txt');
    const before = snapshot(tmp.dir);
    const opts = { command: 'leaderboard', inputs: [join(holding, 'b.json')], replace: true };
    await expect(writeFolderOutput(git, build({ x: '1' }), opts)).rejects.toMatchObject({ code: 'OUTPUT_REFUSED' });
    await expect(writeFolderOutput(git, build({ x: '1' }), opts)).rejects.toThrow(
      /the folder is not empty and llm-nrm did not write it \(it holds \.git\/, README\.md; no \.llm-nrm-output\.json\); nothing was changed/,
    );
    await expect(writeFolderOutput(marked, build({ x: '1' }), opts)).rejects.toThrow(/it now also holds 1 entry llm-nrm did not write \(first "guide\.md"\)/);
    await expect(writeFolderOutput(holding, build({ x: '1' }), opts)).rejects.toThrow(/it holds the input .*b\.json/);
    await expect(writeFolderOutput(file, build({ x: '1' }), opts)).rejects.toThrow(/it is a file, not a folder/);
    await expect(writeFolderOutput(join(file, 'A', 'B'), build({ x: '1' }), opts)).rejects.toThrow(/f\.txt is a file, not a folder/);
    await expect(writeFolderOutput(tmp.dir, build({ x: '1' }), opts)).rejects.toThrow(/holds the input/);
    const cwd = process.cwd();
    try {
      process.chdir(git);
      await expect(writeFolderOutput(join(git, '..'), build({ x: '1' }), { ...opts, inputs: [] })).rejects.toThrow(/it holds the working directory/);
      await expect(writeFolderOutput('.', build({ x: '1' }), { ...opts, inputs: [] })).rejects.toThrow(/it is the working directory/);
    } finally {
      process.chdir(cwd);
    }
    expect(snapshot(tmp.dir)).toEqual(before);
  });

  it('writes through a link to a folder: the link stays a link', async () => {
    const root = fresh();
    const real = join(root, 'real');
    mkdirSync(real);
    symlinkSync(real, join(root, 'link'));
    await writeFolderOutput(join(root, 'link'), build({ 'a.txt': '1' }), { command: 'leaderboard', inputs: [] });
    await writeFolderOutput(join(root, 'link'), build({ 'b.txt': '2' }), { command: 'leaderboard', inputs: [], replace: true });
    expect(lstatSync(join(root, 'link')).isSymbolicLink()).toBe(true);
    expect(readdirSync(real).sort()).toEqual([OUTPUT_MARKER, 'b.txt']);
    expect(readdirSync(root).sort()).toEqual(['link', 'real']);
  });

  it('a failed build leaves the old folder and no temp folder', async () => {
    const root = fresh();
    const dir = join(root, 'out');
    await writeFolderOutput(dir, build({ 'a.json': '1' }), { command: 'publish', inputs: [] });
    const before = snapshot(root);
    const failing = async (): Promise<string[]> => {
      throw new Error('disk full');
    };
    await expect(writeFolderOutput(dir, failing, { command: 'publish', inputs: [], replace: true })).rejects.toThrow(/cannot write the folder: disk full/);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('what a killed run left beside a folder output', () => {
  /** The pid of a process that has exited (and so is not alive). */
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999;
  const marker = (files: string[]): string => JSON.stringify({ tool: 'llm-nrm', command: 'test', createdAt: '2026-01-01T00:00:00Z', files });

  it("removes a half-built temp folder of a dead run, keeps a live run's and folders of other names", async () => {
    const dir = fresh({
      [`.site.${deadPid()}.k1.tmp/index.html`]: 'half',
      [`.site.${process.pid}.k2.tmp/index.html`]: 'live',
      ['.site.backup/keep.txt']: 'mine',
      [`.other.${deadPid()}.k3.tmp/x`]: 'not beside site',
    });
    const before = snapshot(dir);
    await writeFolderOutput(join(dir, 'site'), async (t) => (await writeFile(join(t, 'a.txt'), 'new'), ['a.txt']), { command: 'test', inputs: [] });
    const after = snapshot(dir);
    expect(Object.keys(after).filter((k) => k.includes('k1'))).toEqual([]);
    for (const k of Object.keys(before).filter((k) => !k.includes('k1'))) expect(after[k]).toBe(before[k]);
    expect(readFileSync(join(dir, 'site/a.txt'), 'utf8')).toBe('new');
  });

  it('puts an old folder moved aside back when the swap never happened; otherwise removes only its listed files', async () => {
    const pid = deadPid();
    const dir = fresh({
      [`.site.${pid}.k1.tmp.old/${OUTPUT_MARKER}`]: marker(['a.txt']),
      [`.site.${pid}.k1.tmp.old/a.txt`]: 'old',
    });
    expect(await removeStaleFolderTemps(join(dir, 'site'))).toEqual([join(dir, `.site.${pid}.k1.tmp.old`)]);
    expect(readFileSync(join(dir, 'site/a.txt'), 'utf8')).toBe('old');

    const dir2 = fresh({
      [`site/${OUTPUT_MARKER}`]: marker(['a.txt']),
      ['site/a.txt']: 'current',
      [`.site.${pid}.k1.tmp.old/${OUTPUT_MARKER}`]: marker(['a.txt']),
      [`.site.${pid}.k1.tmp.old/a.txt`]: 'old',
      [`.site.${pid}.k1.tmp.old/notes.txt`]: 'the user put this here',
    });
    await removeStaleFolderTemps(join(dir2, 'site'));
    expect(snapshot(dir2)).toEqual({
      'site/': 'dir',
      [`site/${OUTPUT_MARKER}`]: expect.any(String),
      'site/a.txt': createHash('sha256').update('current').digest('hex'),
      [`.site.${pid}.k1.tmp.old/`]: 'dir',
      [`.site.${pid}.k1.tmp.old/notes.txt`]: createHash('sha256').update('the user put this here').digest('hex'),
    });
  });
});

describe('writeFileOutput', () => {
  it('refuses an input (also under another name), writes atomically otherwise', async () => {
    const dir = fresh({ 'b.json': '{"x":1}', 'r.jsonl': '{}\n' });
    const before = snapshot(dir);
    const inputs = [join(dir, 'b.json'), join(dir, 'r.jsonl')];
    await expect(writeFileOutput(join(dir, 'b.json'), 'new', { inputs })).rejects.toMatchObject({ code: 'OUTPUT_REFUSED' });
    await expect(writeFileOutput(join(dir, '.', 'r.jsonl'), 'new', { inputs, flag: '--truth' })).rejects.toThrow(/--truth .*r\.jsonl is also an input/);
    await expect(assertOutputIsNotInput(join(dir, 'other.json'), [dir])).resolves.toBeUndefined();
    await expect(writeFileOutput(dir, 'new', { inputs })).rejects.toThrow(/refused -o .*: it is a folder; name a file in it or beside it/);
    expect(snapshot(dir)).toEqual(before);
    await writeFileOutput(join(dir, 'out.json'), 'ok', { inputs });
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('ok');
    expect(existsSync(join(dir, 'out.json'))).toBe(true);
  });

  it('refuses a file of a folder llm-nrm wrote (a package’s bank.json), also deeper in it; writes beside it', async () => {
    const root = fresh({ 'b.json': '{}' });
    const pkg = join(root, 'pkg');
    await writeFolderOutput(pkg, build({ 'bank.json': '{"bank":1}', 'lm-eval/bank.json': '{"bank":2}' }), { command: 'publish', inputs: [] });
    const before = snapshot(root);
    const inputs = [join(root, 'b.json')];
    await expect(writeFileOutput(join(pkg, 'bank.json'), 'scores', { inputs })).rejects.toThrow(
      /refused -o .*bank\.json: it is part of .*pkg, which llm-nrm publish wrote/,
    );
    await expect(writeFileOutput(join(pkg, 'lm-eval', 'bank.json'), 'scores', { inputs })).rejects.toMatchObject({ code: 'OUTPUT_REFUSED' });
    expect(snapshot(root)).toEqual(before);
    // A file the marker does not list, and a file beside the folder, are the user's to name.
    await writeFileOutput(join(pkg, 'scores.json'), 'ok', { inputs });
    await writeFileOutput(join(root, 'scores.json'), 'ok', { inputs });
    expect(readFileSync(join(root, 'scores.json'), 'utf8')).toBe('ok');
  });
});
