import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import { engineNames, getEngine, loadEngine, registerEngine, tsEngine, type Engine } from './engines.js';
import { LlmNrmError } from './errors.js';

describe('the engine registry', () => {
  it("has 'ts' loaded from the start", async () => {
    expect(getEngine('ts')).toBe(tsEngine);
    expect(await loadEngine('ts')).toBe(tsEngine);
    expect(engineNames()[0]).toEqual({ name: 'ts', describe: tsEngine.detail });
  });

  it('makes a provider only when loaded, passing its options, and then finds it by name', async () => {
    const seen: unknown[] = [];
    const made: Engine = { name: 'lazy-test', objective: tsEngine.objective };
    registerEngine({ name: 'lazy-test', describe: 'a test provider', load: async (o) => (seen.push(o), made) });
    expect(seen).toEqual([]);
    expect(() => getEngine('lazy-test')).toThrow(/registered but not loaded: await loadEngine\("lazy-test"\)/);
    expect(engineNames().map((e) => e.name)).toContain('lazy-test');
    expect(await loadEngine('lazy-test', { threads: 3, settings: { a: 1 } })).toBe(made);
    expect(seen).toEqual([{ threads: 3, settings: { a: 1 } }]);
    expect(getEngine('lazy-test')).toBe(made);
  });

  it('names the registered engines when asked for an unknown one, and refuses bad names', async () => {
    const e = await loadEngine('nope').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmNrmError);
    expect((e as LlmNrmError).code).toBe('INVALID_OPTION');
    expect((e as LlmNrmError).message).toMatch(/unknown engine: "nope" \(registered: ts/);
    expect(() => registerEngine({ ...tsEngine, name: 'Bad Name' })).toThrow(/invalid engine name/);
  });
});

describe("core's main entry", () => {
  it('stays what a README user needs: at most 50 runtime names (engine authors use @llm-nrm/core/engine)', () => {
    const names = Object.keys(core);
    expect(names.length).toBeGreaterThan(20);
    expect(names.length).toBeLessThanOrEqual(50);
    for (const n of ['fit', 'scoreResponses', 'bankFromRecords', 'toBundle', 'parseBundle', 'loadEngine', 'registerEngine']) expect(names).toContain(n);
  });
});
