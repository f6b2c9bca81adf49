// The Chromium launch (launchChromium.mjs, shared with bench/scale.mjs) and a page wrapper that records every console error, page error, CSP
// violation, dialog and request that leaves the served origin.
import type { BrowserContext, Page } from 'playwright-core';

export { CHROMIUM, launchChromium, type Launched } from './launchChromium.mjs';

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
