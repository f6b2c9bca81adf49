// The site builder ships the browser app it copies into every site: apps/leaderboard's vite build
// (apps/leaderboard/dist/app, built first: turbo's build of this package depends on the app's) is
// copied to dist/app, which `appAssetsDir()` points at and the tarball carries.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../../../apps/leaderboard/dist/app', import.meta.url));
const to = fileURLToPath(new URL('../dist/app', import.meta.url));
if (!existsSync(`${from}/index.html`)) {
  console.error(`@llm-nrm/site: the leaderboard app is not built (no ${from}/index.html): run npm run build at the repository root`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
