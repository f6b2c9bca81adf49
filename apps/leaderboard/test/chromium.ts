// Headless Debian Chromium driven by playwright-core (never a downloaded browser), one fresh
// profile per launch, and a page wrapper that records every console error, page error, CSP
// violation, dialog and request that leaves the served origin.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface Launched {
  /** The browser's one context, on a fresh profile (playwright-core takes it as launchPersistentContext's userDataDir). */
  browser: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Launched> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium (.ci/run does it)`);
  const profile = mkdtempSync(join(tmpdir(), 'llm-nrm-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Console errors, page errors, CSP violations, dialogs and off-origin requests seen so far. */
  problems: string[];
}

/** A page on `origin` whose problems are collected (CSP violations are reported by the page itself). */
export async function watchedPage(browser: BrowserContext, origin: string): Promise<WatchedPage> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    if (m.text().startsWith('CSP violation')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.type()} ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')) problems.push(`request leaving the page: ${u}`);
  });
  page.on('worker', (w) =>
    w.on('console', (m) => {
      if (m.type() === 'error') problems.push(`worker console error: ${m.text()}`);
    }),
  );
  // The page reports its own CSP violations to the console, where the listener above sees them.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.log(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, problems };
}

/** Go to a hash route and wait until the app says the page is drawn. */
export async function openRoute(page: Page, base: string, hash: string): Promise<void> {
  await page.goto(`${base}${hash}`);
  await page.waitForSelector(`body[data-ready="${hash}"]`, { timeout: 20_000 });
}
