import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@llm-nrm/tooling/test';
import { readResponses } from './tidy/readResponses.js';
import { excludeFromWalks, isToolOutput, walkFiles } from './walk.js';

const tmp = tempDir('llm-nrm-walk-');
afterAll(() => tmp.cleanup());
const rec = (i: number) => JSON.stringify({ model: 'm', item: `i/${i}`, key: 0, probs: [0.6, 0.4] }) + '\n';

function put(path: string, text: string): string {
  const p = join(tmp.dir, path);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('walkFiles (the one folder walk)', () => {
  put('a.jsonl', rec(1));
  put('sub/b.jsonl', rec(2));
  put('.hidden/c.jsonl', rec(3));
  put('node_modules/d.jsonl', rec(4));
  put('.all.jsonl.123.lx2k3.tmp', rec(5));
  put('bundle.json', '{\n  "schemaVersion": 1,\n  "model": "llm-nrm",\n  "parts": {}\n}\n');
  put('scores.json', '{\n  "bundle": "b.json",\n  "responses": "r.jsonl"\n}\n');
  put('notes.json', '{"schemaVersion": 1}');
  symlinkSync(join(tmp.dir, 'a.jsonl'), join(tmp.dir, 'link.jsonl'));

  it('lists files sorted, skipping hidden entries, node_modules, our temp files and bundles, following file links', async () => {
    const files = (await walkFiles(tmp.dir)).map((f) => relative(tmp.dir, f));
    expect(files).toEqual(['a.jsonl', 'link.jsonl', 'notes.json', 'sub/b.jsonl']);
    expect(await isToolOutput(join(tmp.dir, 'bundle.json'))).toBe(true);
    expect(await isToolOutput(join(tmp.dir, 'scores.json'))).toBe(true);
    expect(await isToolOutput(join(tmp.dir, 'notes.json'))).toBe(false);
  });

  it('leaves out the outputs of this run, so a reader never reads its own output back', async () => {
    put('run/a.jsonl', rec(1));
    const out = put('run/all.jsonl', rec(1) + rec(2));
    const read = async () => {
      const items: string[] = [];
      for await (const r of readResponses(join(tmp.dir, 'run'))) items.push(r.item);
      return items;
    };
    expect(await read()).toEqual(['i/1', 'i/1', 'i/2']);
    expect((await walkFiles(tmp.dir, { exclude: [out] })).map((f) => relative(tmp.dir, f))).not.toContain('run/all.jsonl');
    excludeFromWalks(out);
    expect(await read()).toEqual(['i/1']);
  });
});
