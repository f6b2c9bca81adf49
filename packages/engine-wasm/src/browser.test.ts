// The browser entry: its whole module graph is free of `node:` imports and Node globals, it loads
// the kernel from the embedded bytes, and its web-worker threads work. Node has no web workers, so
// the threaded test stands in a `Worker` that runs the real web-worker source (self.onmessage) on a
// worker thread, and a `document` so that the pool takes the page-main-thread path (it may not
// block there: it spins on the done counter).
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker as NodeWorker } from 'node:worker_threads';
import { ALL_PARTS, llmNrmLayout, randomSource, simulateFleet } from '@llm-nrm/core';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { afterAll, describe, expect, it } from 'vitest';
import * as browser from './browser.js';
import * as nodeEntry from './index.js';
import { WEB_WORKER_SOURCE } from './internal/workerSource.js';

const srcDir = dirname(fileURLToPath(import.meta.url));

/** Every module reachable from `entry` through relative imports. */
function moduleGraph(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      visit(join(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
    }
  };
  visit(entry);
  return [...seen].map((f) => relative(srcDir, f)).sort();
}

describe('browser entry', () => {
  it('imports nothing from node: and uses no Node globals, anywhere in its module graph', () => {
    const files = moduleGraph(join(srcDir, 'browser.ts'));
    expect(files).toContain('internal/module.ts');
    expect(files).toContain('generated/kernelBytes.ts');
    expect(files).toContain('internal/browserPlatform.ts');
    expect(files).not.toContain('internal/nodePlatform.ts');
    for (const f of files) {
      const code = readFileSync(join(srcDir, f), 'utf8').replace(/^\s*\/\/.*$/gm, '');
      expect(code, f).not.toMatch(/from\s+['"]node:|import\(['"]node:|require\(/);
      expect(code, f).not.toMatch(/\bprocess\.|\bBuffer\b/);
    }
    // The Node entry is the one that brings worker_threads in.
    expect(moduleGraph(join(srcDir, 'index.ts'))).toContain('internal/nodePlatform.ts');
  });

  it("loads the kernel from its embedded bytes and gives the Node entry's bits on one thread", async () => {
    for (const v of ['plain', 'shared'] as const) expect(WebAssembly.validate(browser.kernelBytes(v)), v).toBe(true);
    await browser.loadWasmKernel();
    const { bank } = gradientFleet(11);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const x = randomPoint(layout, randomSource(6));
    const g1 = new Float64Array(x.length);
    const g2 = new Float64Array(x.length);
    const a = browser.wasmLlmNrmObjective(bank, layout);
    expect(a.threads).toBe(1);
    expect(a.lossAndGrad(x, g1)).toBe(nodeEntry.wasmLlmNrmObjective(bank, layout).lossAndGrad(x, g2));
    expect(Array.from(g1)).toEqual(Array.from(g2));
  });
});

describe('browser entry on web workers (stand-in Worker running the web-worker source)', () => {
  const g = globalThis as Record<string, unknown>;
  const saved = { Worker: g.Worker, document: g.document };
  const urls: string[] = [];
  const started: NodeWorker[] = [];
  class StandInWorker {
    private readonly w: NodeWorker;
    constructor(url: string) {
      urls.push(url);
      const glue =
        "const { parentPort } = require('node:worker_threads');\nglobalThis.self = { set onmessage(f) { parentPort.on('message', (data) => f({ data })); } };\n";
      this.w = new NodeWorker(glue + WEB_WORKER_SOURCE, { eval: true });
      this.w.unref();
      started.push(this.w);
    }
    postMessage(m: unknown): void {
      this.w.postMessage(m);
    }
    terminate(): Promise<number> {
      return this.w.terminate();
    }
  }
  g.Worker = StandInWorker;
  g.document = {};
  afterAll(async () => {
    g.Worker = saved.Worker;
    g.document = saved.document;
    await Promise.all(started.map((w) => w.terminate()));
  });

  it('two threads (one web worker, the caller spinning, not blocking) give the one-thread bits', () => {
    const fleet = simulateFleet({ models: 37, items: 40, seed: 2, missing: 0.1 });
    const layout = llmNrmLayout(fleet.bank, ALL_PARTS);
    const x = randomPoint(layout, randomSource(9));
    const pool = browser.wasmThreadPool(2);
    try {
      const threaded = browser.wasmLlmNrmObjective(fleet.bank, layout, {}, { pool, groupsPerBlock: 1 });
      const single = browser.wasmLlmNrmObjective(fleet.bank, layout, {}, { groupsPerBlock: 1 });
      expect(threaded.threads).toBe(2);
      expect(urls.length).toBe(1);
      expect(urls[0]!.startsWith('blob:')).toBe(true);
      const g1 = new Float64Array(x.length);
      const g2 = new Float64Array(x.length);
      const until = Date.now() + 20_000;
      while (pool.workerBlocks === 0 && Date.now() < until) threaded.lossAndGrad(x, g1);
      expect(pool.workerBlocks).toBeGreaterThan(0);
      for (let r = 0; r < 3; r++) {
        expect(threaded.lossAndGrad(x, g1)).toBe(single.lossAndGrad(x, g2));
        expect(Array.from(g1)).toEqual(Array.from(g2));
      }
    } finally {
      pool.dispose();
    }
  });
});
