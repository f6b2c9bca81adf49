// The site's data: a calibration bundle (and optionally the calibrated LLMs' responses and a
// published tiny subset) turned into JSON shards the pages fetch lazily. Every number comes from
// core's and analysis' public functions, so a change there flows into the site on the next build.
import {
  fitConvergence,
  bankFromRecords,
  createBankBuilder,
  bundleItems,
  bundleParameters,
  getFamily,
  itemCurve,
  optionLevelLayout,
  requireKeys,
  sigmoid,
  type BundleItem,
  type CalibrationBundle,
  type ResponseBank,
  type RecordSource,
  type ResponseRecord,
} from '@llm-nrm/core';
import {
  informativeDistractors,
  itemInformation,
  itemQuality,
  keyAudit,
  llmParameterErrors,
  RANK_LEVEL,
  rankIntervals,
  testInformation,
} from '@llm-nrm/analysis';
import type { BenchmarkShard, ItemRow, ItemShard, LeaderboardRow, LeaderboardShard, Manifest, ModelShard, SeparatingItem, TinyScoringShard } from './types.js';

/** Version of the shard layout (bumped when a page could not read an older site's data). */
export const SITE_DATA_VERSION = 1;

export interface SiteInput {
  bundle: CalibrationBundle;
  /**
   * Responses of the calibrated LLMs to the bundle's items (built with `{ items: bundleItems(bundle) }`,
   * e.g. by `responsesBank`). Without it the pages show what the bundle alone knows: no preferred
   * options, no interval on bias and fallback, no accuracy per benchmark.
   */
  bank?: ResponseBank;
  /**
   * A published tiny subset (`llm-nrm publish`): its bundle, whose items are a subset of `bundle`'s;
   * with `scoring`, what the package scores its runs with (written to data/tiny.json: the score page
   * then scores a run of the package as `llm-nrm score <package>` does).
   */
  tiny?: {
    bundle: CalibrationBundle;
    source: string;
    scoring?: Omit<TinyScoringShard, 'version'>;
    /** The package is adaptive (`llm-nrm publish --adaptive`): its items are the pool its runner asks from. */
    adaptive?: boolean;
  };
  /** Title shown in the header (default "LLM-NRM leaderboard"). */
  title?: string;
  /** Items per item shard (default 200). */
  shardSize?: number;
  /** Seed of the rank-interval Monte Carlo (default 1). */
  seed?: number;
  onProgress?: (message: string) => void;
}

/** The files of the site's `data/` folder: relative path -> JSON value. */
export type SiteFiles = Map<string, unknown>;

/** The bank of `records` restricted to the bundle's LLMs and items (bundle item order). */
export function responsesBank(bundle: CalibrationBundle, records: Iterable<ResponseRecord>): { bank: ResponseBank; skipped: number } {
  const builder = responsesBankBuilder(bundle);
  for (const r of records) builder.add(r);
  return builder.finish();
}

/** `responsesBank` one record at a time (a stream's sink: records are not kept); the same bank for the same records. */
export function responsesBankBuilder(bundle: CalibrationBundle): {
  add(r: ResponseRecord, source?: RecordSource): void;
  finish(): { bank: ResponseBank; skipped: number };
} {
  const llms = new Set(bundle.llms.map((l) => l.id));
  const items = new Set(bundle.items.map((i) => i.id));
  const builder = createBankBuilder({ items: bundleItems(bundle), dropEmpty: true });
  let skipped = 0;
  return {
    add: (r, source) => {
      if (llms.has(r.model) && items.has(r.item)) builder.add(r, source);
      else skipped++;
    },
    finish: () => ({ bank: builder.finish().bank, skipped }),
  };
}

/** A bank holding only the bundle's items (one neutral pseudo-LLM), for the item-only analyses. */
function itemsOnlyBank(bundle: CalibrationBundle): ResponseBank {
  const records = bundle.items.map((it): ResponseRecord => ({
    model: '\u0000items',
    item: it.id,
    key: it.key,
    probs: new Array<number>(it.nOptions).fill(1 / it.nOptions),
  }));
  return bankFromRecords(records, { items: bundleItems(bundle) }).bank;
}

const round = (v: number, d = 6): number => (Number.isFinite(v) ? Number(v.toFixed(d)) : v);
const roundAll = (v: ArrayLike<number>, d = 6): number[] => Array.from(v, (t) => round(t, d));

/** The benchmark of an item as the site names it. */
export function benchmarkOf(it: { benchmark?: string }): string {
  return it.benchmark ?? '(no benchmark)';
}

/** Build every data file of the site. Pure: no I/O (buildSite writes them). */
export function siteData(input: SiteInput): SiteFiles {
  const { bundle } = input;
  // Every page reads the key (the information split, P(key) between neighbours, accuracy, the item
  // flags): a key-free bundle's keys are only anchors (consensusKeys), never shown as answers.
  requireKeys(
    bundle.items,
    'the leaderboard site (information split, P(key), accuracy, item flags)',
    'fit the bank with its keys (`llm-nrm audit <bundle> <responses>` checks doubtful ones) and build the site from that bundle',
  );
  const say = input.onProgress ?? (() => {});
  const shardSize = input.shardSize ?? 200;
  const files: SiteFiles = new Map();
  const I = bundle.items.length;
  const K = bundle.kMax;

  // Leaderboard order: theta descending (ties by id), the index every other shard uses.
  const order = bundle.llms
    .map((_, j) => j)
    .sort((a, b) => bundle.llms[b]!.theta - bundle.llms[a]!.theta || (bundle.llms[a]!.id < bundle.llms[b]!.id ? -1 : 1));
  const llms = order.map((j) => bundle.llms[j]!);
  const J = llms.length;
  const ri = rankIntervals(
    llms.map((l) => l.theta),
    llms.map((l) => l.se),
    { seed: input.seed ?? 1, draws: 2000, level: RANK_LEVEL },
  );

  // Benchmarks in order of first appearance; items grouped into shards per benchmark.
  const benchNames: string[] = [];
  const benchIndex = new Map<string, number>();
  const itemBench = new Int32Array(I);
  const benchItems: number[][] = [];
  bundle.items.forEach((it, i) => {
    const name = benchmarkOf(it);
    let b = benchIndex.get(name);
    if (b === undefined) {
      b = benchNames.length;
      benchNames.push(name);
      benchIndex.set(name, b);
      benchItems.push([]);
    }
    itemBench[i] = b;
    benchItems[b]!.push(i);
  });
  const where = new Map<string, { b: number; s: number }>();
  benchItems.forEach((list, b) => list.forEach((i, t) => where.set(bundle.items[i]!.id, { b, s: Math.floor(t / shardSize) })));

  // Item-level analyses on the items alone (the bundle's parameters, neutral LLM).
  say(`item analyses: ${I} items`);
  const itemBank = itemsOnlyBank(bundle);
  const { layout: iLayout, x: ix } = bundleParameters(bundle, itemBank);
  const prior = itemInformation(itemBank, iLayout, ix);
  const quality = itemQuality(itemBank, iLayout, ix);
  const informative = informativeDistractors(itemBank, iLayout, ix);
  // The key audit's verdict per item (analysis keyAudit, `llm-nrm audit`): keys the curves disagree with at its high theta.
  const audit = optionLevelLayout(iLayout) ? keyAudit(itemBank, iLayout, ix) : null;
  const doubted = new Map((audit?.keys ?? []).map((k) => [k.id, k]));

  // Responses: preferred option and mean q on the key per (LLM, item); accuracy per benchmark.
  const bank = input.bank;
  let pref: Int8Array | null = null;
  let prefQ: Float32Array | null = null;
  let keyQ: Float32Array | null = null;
  let benchAcc: { right: Float64Array; cells: Float64Array } | null = null;
  let rowOf: Int32Array | null = null;
  if (bank) {
    say(`responses: ${bank.models.length} LLMs`);
    const bankRow = new Map(bank.models.map((m, j) => [m, j]));
    rowOf = Int32Array.from(llms, (l) => bankRow.get(l.id) ?? -1);
    const s = responseSummaries(bank, rowOf, itemBench, benchNames.length);
    pref = s.pref;
    prefQ = s.prefQ;
    keyQ = s.keyQ;
    benchAcc = s.benchAcc;
  }

  // Each LLM's mean fallback gate over the items it answered: the table and its page both say
  // "unused" below 1%, where the fallback pattern is the prior's and not a finding.
  const family = getFamily(bundle.model, bundle.parts);
  const bankDifficulty = bank ? bankDifficulties(bundle, bank) : null;
  const uses = llms.map((l, r) =>
    family.kind === 'option-level' && bundle.parts.fallback
      ? round(fallbackUse(bundle, l.theta, bank && rowOf && bankDifficulty ? { bank, row: rowOf[r]!, difficulty: bankDifficulty } : null))
      : null,
  );

  // Leaderboard rows.
  const thetas = llms.map((l) => l.theta);
  const range: [number, number] = [Math.min(...thetas), Math.max(...thetas)];
  const rows: LeaderboardRow[] = llms.map((l, r) => {
    const se = l.se;
    const fb = l.fallback.length > 0 ? Math.max(...l.fallback) - Math.min(...l.fallback) : 0;
    const row: LeaderboardRow = {
      id: l.id,
      theta: l.theta,
      se,
      lo: se === null ? null : l.theta - 1.959964 * se,
      hi: se === null ? null : l.theta + 1.959964 * se,
      rank: ri.rank[r]!,
      rankLo: ri.lo[r]!,
      rankHi: ri.hi[r]!,
      group: ri.group[r]!,
      accuracy: l.accuracy ?? null,
      cells: l.cells ?? null,
      sharpness: round(l.sharpness),
      fallbackStrength: round(fb),
      fallbackUse: uses[r]!,
      positionBias: roundAll(l.positionBias, 4),
      fallback: roundAll(l.fallback, 4),
      warnings: (bundle.warnings ?? []).filter((w) => w.llms?.includes(l.id)).map((w) => w.code),
      benchmarks: benchAcc
        ? benchNames.map((_, b) =>
            benchAcc!.cells[r * benchNames.length + b]! > 0
              ? round(benchAcc!.right[r * benchNames.length + b]! / benchAcc!.cells[r * benchNames.length + b]!, 4)
              : null,
          )
        : null,
    };
    return row;
  });
  const board: LeaderboardShard = { version: SITE_DATA_VERSION, llms: rows };
  files.set('leaderboard.json', board);

  // Per-model shards: information of its items at its theta (NRM component, per benchmark), the
  // SEs of its bias and fallback (from its own responses), the items separating it from its neighbours.
  say(`model pages: ${J} LLMs`);
  // SEs of every LLM's bias and fallback from its own responses (Fisher information, one pass).
  const paramErrors = new Map<number, ReturnType<typeof llmParameterErrors>[number]>();
  // Option-level families fitted on the responses as read (not nrm-hard's hardened ones, nor binary).
  if (bank && rowOf && family.kind === 'option-level' && !family.hardened) {
    const { layout, x: bx } = bundleParameters(bundle, bank);
    const boardRows = Array.from(rowOf.keys()).filter((r) => rowOf![r]! >= 0);
    const errs = llmParameterErrors(bank, layout, bx, { rows: boardRows.map((r) => rowOf![r]!), ...(bundle.priors ? { priors: bundle.priors } : {}) });
    boardRows.forEach((r, n) => paramErrors.set(r, errs[n]!));
  }
  for (let r = 0; r < J; r++) {
    const l = llms[r]!;
    const info = itemInformation(itemBank, iLayout, ix, { abilities: [l.theta] });
    const perBench = benchNames.map((name, b) => {
      let total = 0;
      let binary = 0;
      let wrong = 0;
      for (const i of benchItems[b]!) {
        total += info.total[i]!;
        binary += info.binary[i]!;
        wrong += info.wrong[i]!;
      }
      return { benchmark: name, items: benchItems[b]!.length, total: round(total), binary: round(binary), wrong: round(wrong) };
    });
    const shard: ModelShard = {
      version: SITE_DATA_VERSION,
      id: l.id,
      index: r,
      information: perBench,
      paramSe: null,
      fallbackUse: uses[r]!,
      accuracy: rows[r]!.benchmarks
        ? benchNames.map((name, b) => ({ benchmark: name, accuracy: rows[r]!.benchmarks![b]!, cells: benchAcc!.cells[r * benchNames.length + b]! }))
        : null,
      neighbours: [],
    };
    const e = paramErrors.get(r);
    if (e) {
      shard.paramSe = { theta: round(e.theta), positionBias: roundAll(e.positionBias, 4), fallback: roundAll(e.fallback, 4) };
    }
    for (const nb of [r - 1, r + 1]) {
      if (nb < 0 || nb >= J) continue;
      shard.neighbours.push({ id: llms[nb]!.id, index: nb, relation: nb < r ? 'above' : 'below', items: separatingItems(bundle, r, nb, llms, keyQ, where, I) });
    }
    files.set(`models/${r}.json`, shard);
  }

  // Item shards and per-benchmark item indexes.
  say(`item pages: ${benchNames.length} benchmarks`);
  const qualityById = new Map(quality.map((q) => [q.id, q]));
  benchItems.forEach((list, b) => {
    const index: ItemRow[] = [];
    for (let s0 = 0; s0 < list.length; s0 += shardSize) {
      const s = s0 / shardSize;
      const items: ItemShard['items'] = [];
      for (const i of list.slice(s0, s0 + shardSize)) {
        const it = bundle.items[i]!;
        const q = qualityById.get(it.id);
        const d = doubted.get(it.id);
        const entry: ItemShard['items'][number] = {
          id: it.id,
          key: it.key,
          nOptions: it.nOptions,
          options: it.options ?? null,
          a: roundAll(it.a),
          c: roundAll(it.c),
          difficulty: round(it.difficulty),
          irt: it.irt ?? null,
          flags: q?.flags ?? [],
          quality: q
            ? { topAtHigh: q.topAtHigh, keySlope: round(q.keySlope), spread: round(q.spread), dominant: q.dominant, dominantMass: round(q.dominantMass) }
            : null,
          keyAudit: d ? { highTheta: audit!.highTheta, implied: d.implied, margin: round(d.margin), confidence: round(d.confidence, 4) } : null,
          informative: informative[i]!,
          information: { total: round(prior.total[i]!), binary: round(prior.binary[i]!), wrong: round(prior.wrong[i]!) },
          preferred: pref ? Array.from({ length: J }, (_, r) => pref![r * I + i]!) : null,
          preferredQ: prefQ ? Array.from({ length: J }, (_, r) => round(prefQ![r * I + i]!, 4)) : null,
        };
        items.push(entry);
        index.push({
          id: it.id,
          shard: s,
          nOptions: it.nOptions,
          difficulty: round(it.difficulty, 4),
          information: round(prior.total[i]!, 4),
          flags: entry.flags,
          stem: null,
          keyText: it.options?.[it.key] ?? null,
        });
      }
      const shard: ItemShard = { version: SITE_DATA_VERSION, benchmark: benchNames[b]!, shard: s, items };
      files.set(`items/${b}/${s}.json`, shard);
    }
    files.set(`items/${b}/index.json`, { version: SITE_DATA_VERSION, benchmark: benchNames[b]!, items: index });
  });

  // Benchmark shards: test information and SE(theta) over the ability range, full bank and tiny subset.
  say('test information');
  const grid = Float64Array.from({ length: 49 }, (_, t) => -6 + 0.25 * t);
  const tinyIds = input.tiny ? new Set(input.tiny.bundle.items.map((it) => it.id)) : null;
  const curve = (items: number[]) => {
    const t = testInformation(itemBank, iLayout, ix, { grid, items });
    return {
      total: roundAll(t.total),
      binary: roundAll(t.binary),
      wrong: roundAll(t.wrong),
      se: Array.from(t.total, (v) => (v > 0 ? round(1 / Math.sqrt(v)) : null)),
    };
  };
  const compression = compressionOf(bundle);
  const benchShard = (name: string, items: number[], id: string): BenchmarkShard => {
    const tinyItems = tinyIds ? items.filter((i) => tinyIds.has(bundle.items[i]!.id)) : null;
    return {
      version: SITE_DATA_VERSION,
      id,
      name,
      items: items.length,
      theta: Array.from(grid),
      full: curve(items),
      tiny: tinyItems && tinyItems.length > 0 ? { items: tinyItems.length, ...curve(tinyItems) } : null,
      compression: id === 'all' ? compression : null,
    };
  };
  files.set(
    'benchmarks/all.json',
    benchShard(
      'All benchmarks',
      bundle.items.map((_, i) => i),
      'all',
    ),
  );
  benchItems.forEach((list, b) => files.set(`benchmarks/${b}.json`, benchShard(benchNames[b]!, list, String(b))));

  const convergence = fitConvergence(bundle.fit);
  const manifest: Manifest = {
    version: SITE_DATA_VERSION,
    title: input.title ?? 'LLM-NRM leaderboard',
    model: bundle.model,
    parts: bundle.parts,
    kMax: K,
    llms: J,
    items: I,
    benchmarks: benchNames.map((name, b) => ({ id: b, name, items: benchItems[b]!.length, shards: Math.ceil(benchItems[b]!.length / shardSize) })),
    hasResponses: bank !== undefined,
    tiny: input.tiny
      ? {
          source: input.tiny.source,
          items: input.tiny.bundle.items.length,
          ...(input.tiny.scoring ? { task: input.tiny.scoring.task } : {}),
          ...(input.tiny.adaptive === true ? { adaptive: true } : {}),
        }
      : null,
    calibratedRange: range,
    fit: {
      loss: bundle.fit.loss,
      converged: bundle.fit.converged,
      settled: convergence.settled,
      distance: convergence.distance,
      optimizer: bundle.fit.optimizer,
      cells: bundle.fit.cells ?? null,
    },
    provenance: { tool: bundle.provenance.tool, version: bundle.provenance.version, createdAt: bundle.provenance.createdAt },
    rankDraws: 2000,
    rankSeed: input.seed ?? 1,
    warnings: [
      // An unconverged fit is the first thing the leaderboard says (a bundle written under
      // `fit --allow-unconverged` carries the warning; one from before it is read from its fit).
      ...(convergence.message !== null && !(bundle.warnings ?? []).some((w) => w.code === 'UNCONVERGED')
        ? [{ code: 'UNCONVERGED', message: `${convergence.message[0]!.toUpperCase()}${convergence.message.slice(1)}.` }]
        : []),
      ...(bundle.warnings ?? []).map((w) => ({ ...w })),
    ].sort((a, b) => Number(b.code === 'UNCONVERGED') - Number(a.code === 'UNCONVERGED')),
  };
  files.set('manifest.json', manifest);
  // The bundle itself, for scoring in the browser (loaded only by the score page).
  files.set('bundle.json', bundle);
  // A tiny package's scoring, for its runs (loaded by the score page's worker only when a run is one).
  if (input.tiny?.scoring) files.set('tiny.json', { version: SITE_DATA_VERSION, ...input.tiny.scoring } satisfies TinyScoringShard);
  return files;
}

/** Compression curve a bundle may carry (`compression.points`, as analysis' `compression` returns them). */
function compressionOf(bundle: CalibrationBundle): BenchmarkShard['compression'] {
  const c = (bundle as unknown as { compression?: { points?: { budget: number; kendall: number; kendallRandom?: number }[] } }).compression;
  if (!c || !Array.isArray(c.points) || c.points.length === 0) return null;
  return c.points
    .filter((p) => typeof p.budget === 'number' && typeof p.kendall === 'number')
    .map((p) => ({ budget: p.budget, kendall: round(p.kendall, 4), kendallRandom: typeof p.kendallRandom === 'number' ? round(p.kendallRandom, 4) : null }));
}

/** Per (board row, item): the preferred option (argmax of the mean q over its presentations), its q, and the mean q on the key. */
function responseSummaries(bank: ResponseBank, rowOf: Int32Array, itemBench: Int32Array, nBench: number) {
  const J = rowOf.length;
  const I = bank.items.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const pref = new Int8Array(J * I).fill(-1);
  const prefQ = new Float32Array(J * I).fill(NaN);
  const keyQ = new Float32Array(J * I).fill(NaN);
  const right = new Float64Array(J * nBench);
  const cells = new Float64Array(J * nBench);
  const sum = new Float64Array(bank.itemOffsets[I]!);
  const n = new Int32Array(I);
  for (let r = 0; r < J; r++) {
    const j = rowOf[r]!;
    if (j < 0) continue;
    sum.fill(0);
    n.fill(0);
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const o = j * width + bank.colOffsets[c]!;
      const k = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      const io = bank.itemOffsets[i]!;
      let best = 0;
      for (let t = 0; t < k; t++) {
        sum[io + t]! += bank.q[o + t]!;
        if (bank.q[o + t]! > bank.q[o + best]!) best = t;
      }
      n[i]!++;
      const b = itemBench[i]!;
      cells[r * nBench + b]!++;
      if (best === bank.key[i]) right[r * nBench + b]!++;
    }
    for (let i = 0; i < I; i++) {
      if (n[i] === 0) continue;
      const io = bank.itemOffsets[i]!;
      const k = bank.itemOffsets[i + 1]! - io;
      let best = 0;
      for (let t = 1; t < k; t++) if (sum[io + t]! > sum[io + best]!) best = t;
      pref[r * I + i] = best;
      prefQ[r * I + i] = sum[io + best]! / n[i]!;
      keyQ[r * I + i] = sum[io + bank.key[i]!]! / n[i]!;
    }
  }
  return { pref, prefQ, keyQ, benchAcc: { right, cells } };
}

/**
 * The items that separate board rows r and nb most: with responses, the largest gaps between their
 * mean probabilities on the key (what the data shows); without, the largest gaps between the
 * model's P(key) at their two thetas.
 */
function separatingItems(
  bundle: CalibrationBundle,
  r: number,
  nb: number,
  llms: CalibrationBundle['llms'],
  keyQ: Float32Array | null,
  where: Map<string, { b: number; s: number }>,
  I: number,
  top = 8,
): SeparatingItem[] {
  // The `top` largest |gap| in one pass (a small sorted list, not a sort of all I items: this runs
  // twice per LLM, 378 times over 31,554 items at the paper's size).
  const gaps: { i: number; gap: number; self: number; other: number }[] = [];
  // The model's P(key): core's itemCurve at the key, into one scratch for all items.
  const curve = new Float64Array(bundle.kMax);
  const pKey = (it: BundleItem, theta: number) => itemCurve(it, theta, curve)[it.key]!;
  const better = (a: { i: number; gap: number }, b: { i: number; gap: number }) =>
    Math.abs(a.gap) > Math.abs(b.gap) || (Math.abs(a.gap) === Math.abs(b.gap) && a.i < b.i);
  for (let i = 0; i < I; i++) {
    const it = bundle.items[i]!;
    let self: number;
    let other: number;
    if (keyQ) {
      self = keyQ[r * I + i]!;
      other = keyQ[nb * I + i]!;
      if (Number.isNaN(self) || Number.isNaN(other)) continue;
    } else {
      self = pKey(it, llms[r]!.theta);
      other = pKey(it, llms[nb]!.theta);
    }
    const g = { i, gap: self - other, self, other };
    if (gaps.length === top && !better(g, gaps[top - 1]!)) continue;
    let t = Math.min(gaps.length, top - 1);
    gaps[t] = g;
    while (t > 0 && better(g, gaps[t - 1]!)) {
      gaps[t] = gaps[t - 1]!;
      gaps[t - 1] = g;
      t--;
    }
  }
  return gaps.map((g) => {
    const it = bundle.items[g.i]!;
    const w = where.get(it.id)!;
    return {
      id: it.id,
      benchmark: w.b,
      shard: w.s,
      keyText: it.options?.[it.key] ?? null,
      self: round(g.self, 4),
      other: round(g.other, 4),
      observed: keyQ !== null,
    };
  });
}

/**
 * Mean gate G_i = sigmoid(w0 - kappa (theta - b_i)) (paper.md's fallback gate) over the items the LLM
 * answered in `responses`, or over all the bundle's items without them: how much of its choices the
 * fitted fallback carries.
 */
function fallbackUse(bundle: CalibrationBundle, theta: number, responses: { bank: ResponseBank; row: number; difficulty: Float64Array } | null): number {
  const { w0, kappa } = bundle.globals;
  const gate = (b: number) => sigmoid(w0 - kappa * (theta - b));
  if (responses && responses.row >= 0) {
    const { bank, row, difficulty } = responses;
    const C = bank.colItem.length;
    const seen = new Uint8Array(bank.items.length);
    let sum = 0;
    let n = 0;
    for (let c = 0; c < C; c++) {
      const i = bank.colItem[c]!;
      if (seen[i] || !bank.observed[row * C + c] || Number.isNaN(difficulty[i]!)) continue;
      seen[i] = 1;
      sum += gate(difficulty[i]!);
      n++;
    }
    if (n > 0) return sum / n;
  }
  let sum = 0;
  for (const it of bundle.items) sum += gate(it.difficulty);
  return bundle.items.length > 0 ? sum / bundle.items.length : 0;
}

/** The bundle's difficulty of each bank item (NaN for an item the bundle lacks), for fallbackUse. */
function bankDifficulties(bundle: CalibrationBundle, bank: ResponseBank): Float64Array {
  const byId = new Map(bundle.items.map((it) => [it.id, it.difficulty]));
  return Float64Array.from(bank.items, (it) => byId.get(it.id) ?? NaN);
}
