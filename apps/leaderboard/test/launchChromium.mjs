// Headless Debian Chromium through playwright-core (never a downloaded browser), on a fresh
// profile per launch. Plain JavaScript so that both the site tests (vitest) and the scale bench
// (plain node) launch the browser the same way.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a quiet, offline, sandbox-free headless run in a container. */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]);

/** Launches Chromium on a fresh profile; `close()` shuts it and removes the profile. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium (.ci/run does it)`);
  const profile = mkdtempSync(join(tmpdir(), 'llm-nrm-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [...CHROMIUM_ARGS],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
