import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LlmNrmError, parseBundle, validateBundle, type CalibrationBundle } from '@llm-nrm/core';
import type { TinyBank } from './tinyPackage.js';

/** A tiny package folder as `writeTinyPackage` wrote it, read back and checked. */
export interface ReadTinyPackage {
  dir: string;
  bank: TinyBank;
  /** sha256 of bank.json as it is on disk (what the harness task files record). */
  bankSha256: string;
  /** OpenAI-evals line index -> item id. */
  manifest: string[] | null;
  /** item id -> content sha256 of the text the harness ran. */
  content: Map<string, string>;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function sha256File(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/**
 * Read and check a tiny package (the reader of `writeTinyPackage`'s folder): bank.json's bundle
 * validated, every items.jsonl copy against its itemsSha256, lm-eval/'s copy of bank.json against
 * bank.json. What was edited after publishing is refused (CONTENT_CHANGED), naming the file.
 */
export async function readTinyPackage(dir: string): Promise<ReadTinyPackage> {
  const bankPath = join(dir, 'bank.json');
  let text: string;
  try {
    text = await readFile(bankPath, 'utf8');
  } catch (e) {
    throw new LlmNrmError('IO', `${dir} is not a tiny package (no bank.json): ${(e as Error).message}`, { cause: e, file: bankPath });
  }
  let raw: TinyBank;
  try {
    raw = JSON.parse(text) as TinyBank;
  } catch (e) {
    throw new LlmNrmError('INVALID_BUNDLE', `${bankPath} is not JSON: ${(e as Error).message}`, { cause: e, file: bankPath });
  }
  if (raw.format !== 'llm-nrm-tiny')
    throw new LlmNrmError('INVALID_BUNDLE', `${bankPath} is not a tiny package's bank (format ${JSON.stringify(raw.format)})`, { file: bankPath });
  raw.bundle = parseBundle(JSON.stringify(raw.bundle), `${bankPath} bundle`);
  for (const rel of ['items.jsonl', 'lm-eval/items.jsonl']) {
    const p = join(dir, rel);
    let sha: string;
    try {
      sha = await sha256File(p);
    } catch {
      if (rel === 'items.jsonl') throw new LlmNrmError('IO', `${p} is missing`, { file: p });
      continue;
    }
    if (sha !== raw.itemsSha256) {
      throw new LlmNrmError(
        'CONTENT_CHANGED',
        `${p} was edited after publishing: its sha256 ${sha.slice(0, 12)}... differs from bank.json's itemsSha256 ${raw.itemsSha256.slice(0, 12)}...; ` +
          're-export the package with llm-nrm publish, or restore the file',
        { file: p },
      );
    }
  }
  const content = new Map<string, string>();
  for (const line of (await readFile(join(dir, 'items.jsonl'), 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    const it = JSON.parse(line) as { item_id: string; content_sha256: string };
    content.set(it.item_id, it.content_sha256);
  }
  let manifest: string[] | null = null;
  const data = join(dir, 'openai-evals', 'data');
  if (await isDir(data)) {
    for (const d of await readdir(data)) {
      try {
        manifest = (JSON.parse(await readFile(join(data, d, 'manifest.json'), 'utf8')) as { items: string[] }).items;
      } catch {
        // no manifest in this folder
      }
    }
  }
  const bankSha256 = await sha256File(bankPath);
  // lm-eval/ carries its own copy of bank.json (it runs copied alone): the copy must be the bank.
  const copy = join(dir, 'lm-eval', 'bank.json');
  const copySha = await sha256File(copy).catch(() => null);
  if (copySha !== null && copySha !== bankSha256) {
    throw new LlmNrmError(
      'CONTENT_CHANGED',
      `${copy} differs from ${bankPath} (sha256 ${copySha.slice(0, 12)}... vs ${bankSha256.slice(0, 12)}...): one was edited after publishing; ` +
        're-export the package with llm-nrm publish, or restore the file',
      { file: copy },
    );
  }
  return { dir, bank: raw, bankSha256, manifest, content };
}

/**
 * The bundle a package's runs are scored against: its bank's bundle with each item's content
 * sha256 that of the text the harness ran (items.jsonl), so a run's recorded prompts are checked
 * against what it was shown. `llm-nrm score <package>` and the site's score page use this one.
 */
export function tinyScoringBundle(pkg: Pick<ReadTinyPackage, 'bank' | 'content'>): CalibrationBundle {
  const bundle = {
    ...pkg.bank.bundle,
    items: pkg.bank.bundle.items.map((it) => ({ ...it, contentSha256: pkg.content.get(it.id) ?? it.contentSha256 })),
  } as CalibrationBundle;
  bundle.items.forEach((it) => {
    if (it.contentSha256 === undefined) delete it.contentSha256;
  });
  return bundle;
}

/**
 * The bundle in a published folder's bank.json, read leniently (the site's `--tiny`): the bundle
 * inside a tiny bank (`{format: 'llm-nrm-tiny', bundle, ...}`), or a bare bundle as it is; the
 * bank too where it is one.
 */
export async function readTinyBankFile(file: string): Promise<{ bundle: CalibrationBundle; bank: Partial<TinyBank> | null }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new LlmNrmError('INVALID_BUNDLE', `cannot read ${file} as JSON: ${(e as Error).message}`, { cause: e, file });
  }
  const v = value as Partial<TinyBank> & { format?: unknown; bundle?: unknown };
  if (v !== null && typeof v === 'object' && v.format === 'llm-nrm-tiny') return { bundle: validateBundle(v.bundle, `${file} (bundle)`), bank: v };
  return { bundle: validateBundle(value, file), bank: null };
}
