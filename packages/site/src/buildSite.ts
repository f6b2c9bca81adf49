import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmNrmError } from '@llm-nrm/core';
import { filesUnder, writeFolderOutput } from '@llm-nrm/adapters';
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

export interface BuildSiteOptions {
  /** The built app to copy (default: appAssetsDir()). */
  assets?: string;
  /** The files the site is built from: a folder holding one is never written (output policy). */
  inputs?: readonly string[];
  /** The command recorded in the folder's marker (default `leaderboard`). */
  command?: string;
}

/**
 * Write the static site for `input` into `outDir`: the app's assets and a `data/` folder of JSON
 * shards. Under adapters' output policy: `outDir` must be absent, empty or a site llm-nrm built
 * (which is replaced); everything goes to a fresh sibling folder first, which then takes its place.
 */
export async function buildSite(input: SiteInput, outDir: string, options: BuildSiteOptions = {}): Promise<BuildSiteResult> {
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
  let dataSeconds = 0;
  let shards = 0;
  const out = resolve(outDir);
  let bytes = 0;
  await writeFolderOutput(
    out,
    async (tmp) => {
      // The data is computed only once the folder is known to be writable (no wasted minutes).
      const files = siteData(input);
      shards = files.size;
      dataSeconds = (performance.now() - t) / 1000;
      t = performance.now();
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
      return filesUnder(tmp);
    },
    { command: options.command ?? 'leaderboard', inputs: options.inputs ?? [], replace: true },
  );
  return { dir: out, files: shards, bytes, seconds: { data: dataSeconds, write: (performance.now() - t) / 1000 } };
}
