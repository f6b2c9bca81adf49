// The browser tests run on the built app (dist/app, what `npm run build` writes). When a source of
// the app is newer than the build (editing without rebuilding), build it first, so that a test
// never passes or fails on a stale bundle. The workspace packages it bundles are read from their
// dist/ folders (package.json exports), so a rebuilt package (tsc) counts as a newer source too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const appRoot = fileURLToPath(new URL('..', import.meta.url));

/** The workspace packages the app imports (bundled from their dist/). */
const BUNDLED = ['core', 'analysis', 'adapters', 'site'].map((p) => fileURLToPath(new URL(`../../../packages/${p}/dist`, import.meta.url)));

function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export async function ensureAppBuilt(): Promise<string> {
  const index = join(appRoot, 'dist/app/index.html');
  const sources = Math.max(
    newest(join(appRoot, 'src/app')),
    statSync(join(appRoot, 'index.html')).mtimeMs,
    newest(join(appRoot, 'public')),
    ...BUNDLED.map(newest),
  );
  if (!existsSync(index) || statSync(index).mtimeMs < sources) {
    const { build } = await import('vite');
    await build({ root: appRoot, configFile: join(appRoot, 'vite.config.ts'), logLevel: 'warn' });
  }
  return join(appRoot, 'dist/app');
}
