import { describe, expect, it } from 'vitest';
import { bankRecords, fit, isLlmNrmError, simulateFleet, toBundle } from '@llm-nrm/core';
import { responsesBank, siteData } from './siteData.js';
import type { BenchmarkShard, ItemShard, LeaderboardShard, Manifest, ModelShard } from './types.js';

const fleet = simulateFleet({ models: 10, items: 120, seed: 4, rotations: 2 });
const bundle = toBundle(fit(fleet.bank), { version: 'test', createdAt: '2026-01-01T00:00:00.000Z' });
const records = [...bankRecords(fleet.bank)];

describe('siteData', () => {
  it('writes a board in theta order with rank intervals, and shards for every model, item and benchmark', () => {
    const { bank } = responsesBank(bundle, records);
    const files = siteData({ bundle, bank, shardSize: 25, tiny: { bundle: { ...bundle, items: bundle.items.slice(0, 12) }, source: 'tiny/' } });
    const m = files.get('manifest.json') as Manifest;
    const board = files.get('leaderboard.json') as LeaderboardShard;
    expect(m.llms).toBe(10);
    expect(board.llms.map((l) => l.theta)).toEqual(bundle.llms.map((l) => l.theta).sort((a, b) => b - a));
    for (const l of board.llms) {
      expect(l.rankLo).toBeLessThanOrEqual(l.rank);
      expect(l.rankHi).toBeGreaterThanOrEqual(l.rank);
      expect(l.lo!).toBeLessThan(l.theta);
      expect(l.benchmarks!.length).toBe(m.benchmarks.length);
    }
    let items = 0;
    for (const b of m.benchmarks) for (let s = 0; s < b.shards; s++) items += (files.get(`items/${b.id}/${s}.json`) as ItemShard).items.length;
    expect(items).toBe(120);
    const all = files.get('benchmarks/all.json') as BenchmarkShard;
    expect(all.tiny!.items).toBe(12);
    all.full.total.forEach((v, t) => expect(all.tiny!.total[t]!).toBeLessThanOrEqual(v));
    // The separating items are the largest gaps of mean P(key) between neighbours on the board.
    const model = files.get('models/3.json') as ModelShard;
    expect(model.paramSe!.positionBias.every((v) => v > 0)).toBe(true);
    const above = model.neighbours.find((n) => n.relation === 'above')!;
    expect(above.index).toBe(2);
    const gaps = above.items.map((it) => Math.abs(it.self - it.other));
    expect(gaps).toEqual(gaps.slice().sort((a, b) => b - a));
    const shard = (id: string) => {
      const b = m.benchmarks.find((x) => x.name === bundle.items.find((it) => it.id === id)!.benchmark)!;
      for (let s = 0; s < b.shards; s++) {
        const e = (files.get(`items/${b.id}/${s}.json`) as ItemShard).items.find((it) => it.id === id);
        if (e) return e;
      }
      throw new Error(id);
    };
    // No item left out has a larger observed gap than the smallest one kept (up to 4-decimal rounding).
    const keyQ = (row: number, id: string) => {
      const j = bank.models.indexOf(board.llms[row]!.id);
      const i = bank.items.findIndex((it) => it.id === id);
      let sum = 0;
      let n = 0;
      for (let c = 0; c < bank.colItem.length; c++) {
        if (bank.colItem[c] !== i || !bank.observed[j * bank.colItem.length + c]) continue;
        sum += bank.q[j * bank.colOffsets[bank.colItem.length]! + bank.colOffsets[c]! + bank.key[i]!]!;
        n++;
      }
      return sum / n;
    };
    const kept = new Set(above.items.map((it) => it.id));
    const smallest = Math.min(...gaps);
    for (const it of bundle.items) if (!kept.has(it.id)) expect(Math.abs(keyQ(3, it.id) - keyQ(2, it.id))).toBeLessThanOrEqual(smallest + 1e-4);
    expect(shard(above.items[0]!.id).preferred!.length).toBe(10);
  });

  it("gives each model's mean fallback gate over the items it answered, near 0 when the gate is shut", () => {
    const { bank } = responsesBank(bundle, records);
    const use = (b: typeof bundle) => {
      const files = siteData({ bundle: b, bank });
      const board = files.get('leaderboard.json') as LeaderboardShard;
      return board.llms.map((l, r) => ({ theta: l.theta, use: (files.get(`models/${r}.json`) as ModelShard).fallbackUse! }));
    };
    const { w0, kappa } = bundle.globals;
    // Every model answered every item here, so the mean runs over all of them.
    for (const { theta, use: u } of use(bundle)) {
      const mean = bundle.items.reduce((s, it) => s + 1 / (1 + Math.exp(-(w0 - kappa * (theta - it.difficulty)))), 0) / bundle.items.length;
      expect(u).toBeCloseTo(mean, 6);
      expect(u).toBeGreaterThan(0.01);
    }
    for (const { use: u } of use({ ...bundle, globals: { w0: -40, kappa } })) expect(u).toBeLessThan(1e-6);
    const noFallback = siteData({ bundle: { ...bundle, parts: { ...bundle.parts, fallback: false } } });
    expect((noFallback.get('models/0.json') as ModelShard).fallbackUse).toBeNull();
  });

  it('without responses: no preferred options, no bias intervals, separating items from the model', () => {
    const files = siteData({ bundle });
    expect((files.get('manifest.json') as Manifest).hasResponses).toBe(false);
    const model = files.get('models/0.json') as ModelShard;
    expect(model.paramSe).toBeNull();
    expect(model.neighbours[0]!.items[0]!.observed).toBe(false);
    expect((files.get('items/0/0.json') as ItemShard).items[0]!.preferred).toBeNull();
  });

  it("carries the key audit's verdict on the item rows: a planted wrong key is doubted, agreeing keys are not", () => {
    // Item 0 keyed to the option least likely at theta 4 instead of its fitted curves' leader there.
    const at4 = (it: (typeof bundle.items)[number]) => it.a.map((a, k) => a * 4 + it.c[k]!);
    const z = at4(bundle.items[0]!);
    const leader = z.indexOf(Math.max(...z));
    const wrong = z.indexOf(Math.min(...z));
    const planted = { ...bundle, items: bundle.items.map((it, i) => (i === 0 ? { ...it, key: wrong } : it)) };
    const files = siteData({ bundle: planted });
    const m = files.get('manifest.json') as Manifest;
    let doubted = 0;
    for (const b of m.benchmarks)
      for (let s = 0; s < b.shards; s++)
        for (const e of (files.get(`items/${b.id}/${s}.json`) as ItemShard).items) {
          const zi = at4(planted.items.find((it) => it.id === e.id)!);
          const top = zi.indexOf(Math.max(...zi));
          if (top === e.key) expect(e.keyAudit).toBeNull();
          else {
            doubted++;
            expect(e.keyAudit!.implied).toBe(top);
            expect(e.keyAudit!.highTheta).toBe(4);
            expect(e.keyAudit!.margin).toBeCloseTo(zi[top]! - zi[e.key]!, 5);
          }
          if (e.id === planted.items[0]!.id) expect(e.keyAudit).toMatchObject({ implied: leader, confidence: expect.any(Number) });
        }
    expect(doubted).toBeGreaterThan(0);
  });

  it('refuses a key-free bundle with NO_KEY naming the items (every page reads the key)', () => {
    const free = { ...bundle, items: bundle.items.map((it, i) => (i === 2 || i === 7 ? { ...it, keyFree: true as const } : it)) };
    let err: unknown;
    try {
      siteData({ bundle: free });
    } catch (e) {
      err = e;
    }
    expect(isLlmNrmError(err, 'NO_KEY')).toBe(true);
    expect((err as Error).message).toContain(`no key for 2 of 120 items ("${bundle.items[2]!.id}", "${bundle.items[7]!.id}")`);
  });
});
