import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmNrmError } from '@llm-nrm/core';
import { CSP_META } from './csp.js';
import { siteData, type SiteInput } from './siteData.js';

/** The built leaderboard app (apps/leaderboard's vite build, copied into this package's dist/app at build). */
export function appAssetsDir(): string {
  // dist/app from both dist/ (the package) and src/ (its tests).
  return resolve(dirname(fileURLToPath(import.meta.url)), '../dist/app');
}

export interface BuildSiteResult {
  dir: string;
  files: number;
  bytes: number;
  seconds: { data: number; write: number };
}

/**
 * Write the static site for `input` into `outDir`: the app's assets and a `data/` folder of JSON
 * shards. Atomic: everything goes to a fresh sibling folder first, which then replaces `outDir` in
 * one rename (an old site there is removed only after the new one is complete).
 */
export async function buildSite(input: SiteInput, outDir: string, options: { assets?: string } = {}): Promise<BuildSiteResult> {
  const assets = options.assets ?? appAssetsDir();
  const indexFile = join(assets, 'index.html');
  if (!existsSync(indexFile)) {
    throw new LlmNrmError('IO', `the leaderboard app is not built (no ${indexFile}): run npm run build`, { file: indexFile });
  }
  const html = await readFile(indexFile, 'utf8');
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
  if (meta !== CSP_META)
    throw new LlmNrmError('FORMAT', `${indexFile} does not carry the site's Content-Security-Policy meta tag (rebuild the app)`, { file: indexFile });
  let t = performance.now();
  const files = siteData(input);
  const dataSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const out = resolve(outDir);
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  let bytes = 0;
  try {
    await mkdir(dirname(out), { recursive: true });
    await cp(assets, tmp, { recursive: true });
    const dirs = new Set<string>();
    for (const path of files.keys()) dirs.add(dirname(join(tmp, 'data', path)));
    for (const d of dirs) await mkdir(d, { recursive: true });
    const entries = [...files];
    // A few writes in flight at a time: many small shards, bounded memory.
    for (let s = 0; s < entries.length; s += 32) {
      await Promise.all(
        entries.slice(s, s + 32).map(async ([path, value]) => {
          const text = JSON.stringify(value);
          bytes += Buffer.byteLength(text);
          await writeFile(join(tmp, 'data', path), text);
        }),
      );
    }
    if (existsSync(out)) {
      const old = `${out}.old-${process.pid}-${Date.now()}`;
      await rename(out, old);
      await rename(tmp, out);
      await rm(old, { recursive: true, force: true });
    } else await rename(tmp, out);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e instanceof LlmNrmError ? e : new LlmNrmError('IO', `cannot write the site to ${out}: ${(e as Error).message}`, { cause: e, file: out });
  }
  return { dir: out, files: files.size, bytes, seconds: { data: dataSeconds, write: (performance.now() - t) / 1000 } };
}
