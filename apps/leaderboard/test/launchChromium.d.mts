import type { BrowserContext } from 'playwright-core';

export declare const CHROMIUM: string;
export declare const CHROMIUM_ARGS: readonly string[];

export interface Launched {
  /** The browser's one context, on a fresh profile (playwright-core takes it as launchPersistentContext's userDataDir). */
  browser: BrowserContext;
  close(): Promise<void>;
}

export declare function launchChromium(): Promise<Launched>;
