import AjvModule from 'ajv';
import { correctness, type ResponseBank } from './bank.js';
import { LlmNrmError } from './errors.js';
import type { FitResult } from './fit.js';
import { itemDifficulties } from './fit.js';
import { binaryLayout, llmNrmLayout, sigmoid, softplus, softplusInv, type Layout } from './layout.js';
import type { Priors } from './objective.js';
import schema from './schema/calibration-bundle.schema.json' with { type: 'json' };
import type { ItemSource, ItemSpec, LlmNrmParts, ModelName } from './types.js';

/** The calibration bundle (schema: schema/calibration-bundle.schema.json, `schemaVersion` 1). */
export interface CalibrationBundle {
  schemaVersion: 1;
  model: ModelName;
  parts: LlmNrmParts;
  priors?: Priors;
  kMax: number;
  llms: BundleLlm[];
  items: BundleItem[];
  globals: { w0: number; kappa: number };
  fit: {
    model: string; loss: number; iterations: number; passes: number; seconds: number; converged: boolean;
    reason?: string; optimizer: string; engine: string; cells?: number;
  };
  provenance: { tool: string; version: string; createdAt: string; inputs?: { path: string; sha256: string }[]; seed?: number; command?: string };
  /** What the data cannot support (design checks, item versions): shown with any leaderboard. */
  warnings?: BundleWarning[];
}

/** One warning of a bundle: a code to branch on, a sentence, and the LLMs or items concerned. */
export interface BundleWarning {
  code: string;
  message: string;
  llms?: string[];
  items?: string[];
}

export interface BundleLlm {
  id: string;
  theta: number;
  /** Standard error of theta (null when not computed). */
  se: number | null;
  sharpness: number;
  /** delta_j over displayed positions 0..kMax-1 (sum to zero). */
  positionBias: number[];
  /** rho_j over displayed positions (sum to zero). */
  fallback: number[];
  /** Share of observed cells whose argmax was the key. */
  accuracy?: number;
  cells?: number;
}

export interface BundleItem {
  id: string;
  key: number;
  nOptions: number;
  benchmark?: string;
  options?: string[];
  /** Option slopes, content order, sum to zero (empty for binary models). */
  a: number[];
  /** Option intercepts, content order, sum to zero (empty for binary models). */
  c: number[];
  difficulty: number;
  /** Binary models: discrimination, intercept, guess and upper asymptote. */
  irt?: { discrimination: number; intercept: number; guess: number; upper: number };
  informativeDistractors?: number[];
  /** Where the item came from in its harness. */
  source?: ItemSource;
  /** `itemContentSha256(prompt, continuations)` of the calibration text. */
  contentSha256?: string;
}

/** JSON Schema of the bundle, as published in the package (`@llm-nrm/core/schema`). */
export const CALIBRATION_BUNDLE_SCHEMA: object = schema;
export const BUNDLE_SCHEMA_VERSION = 1;

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as unknown as new (o: object) => {
  compile(s: object): ((d: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: unknown }[] | null };
};
let validator: ReturnType<InstanceType<typeof Ajv>['compile']> | undefined;

/** Validate a parsed bundle against the JSON Schema; throws INVALID_BUNDLE naming the first problems. */
export function validateBundle(value: unknown, source = 'bundle'): CalibrationBundle {
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (!validator(value)) {
    const errs = (validator.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    throw new LlmNrmError('INVALID_BUNDLE', `${source} is not a valid calibration bundle (schemaVersion ${BUNDLE_SCHEMA_VERSION}): ${errs.join('; ')}`);
  }
  const b = value as CalibrationBundle;
  // Cross-field checks JSON Schema cannot express.
  for (const it of b.items) {
    if (it.key >= it.nOptions) throw new LlmNrmError('INVALID_BUNDLE', `${source}: item ${JSON.stringify(it.id)} key ${it.key} out of range (${it.nOptions} options)`);
    if (isNrmFamily(b.model) && (it.a.length !== it.nOptions || it.c.length !== it.nOptions)) {
      throw new LlmNrmError('INVALID_BUNDLE', `${source}: item ${JSON.stringify(it.id)} has ${it.a.length} slopes and ${it.c.length} intercepts for ${it.nOptions} options`);
    }
    if (!isNrmFamily(b.model) && it.irt === undefined) throw new LlmNrmError('INVALID_BUNDLE', `${source}: item ${JSON.stringify(it.id)} lacks irt parameters for model ${b.model}`);
  }
  for (const l of b.llms) {
    if (isNrmFamily(b.model) && (l.positionBias.length !== b.kMax || l.fallback.length !== b.kMax)) {
      throw new LlmNrmError('INVALID_BUNDLE', `${source}: LLM ${JSON.stringify(l.id)} has ${l.positionBias.length} position biases, expected kMax = ${b.kMax}`);
    }
  }
  return b;
}

/** Parse and validate bundle JSON text. */
export function parseBundle(text: string, source = 'bundle'): CalibrationBundle {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new LlmNrmError('INVALID_BUNDLE', `${source} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  return validateBundle(v, source);
}

function isNrmFamily(m: ModelName): boolean {
  return m === 'llm-nrm' || m === 'nrm' || m === 'nrm-hard';
}

function centered(x: Float64Array, o: number, n: number): number[] {
  let m = 0;
  for (let t = 0; t < n; t++) m += x[o + t]!;
  m /= n;
  return Array.from({ length: n }, (_, t) => x[o + t]! - m);
}

/** Build the bundle of a fit (sum-to-zero parameters, human-scale sharpness and kappa). */
export function toBundle(
  result: FitResult,
  provenance: { version: string; createdAt?: string; inputs?: { path: string; sha256: string }[]; seed?: number; command?: string },
): CalibrationBundle {
  const bank = result.bank;
  const L = result.layout;
  const x = result.x;
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const y = correctness(bank);
  const diff = itemDifficulties(bank, L, x);
  const llms: BundleLlm[] = [];
  for (let j = 0; j < J; j++) {
    let right = 0;
    let n = 0;
    for (let c = 0; c < nC; c++) {
      const v = y[j * nC + c]!;
      if (v === 255) continue;
      right += v;
      n++;
    }
    const se = result.se[j]!;
    const base = { id: bank.models[j]!, theta: x[L.theta + j]!, se: Number.isFinite(se) ? se : null, accuracy: n > 0 ? right / n : 0, cells: n };
    if (L.kind === 'llm-nrm') {
      llms.push({
        ...base,
        sharpness: L.parts.sharpness ? softplus(x[L.sbar + j]!) : 1,
        positionBias: centered(x, L.delta + j * L.kMax, L.kMax),
        fallback: centered(x, L.rho + j * L.kMax, L.kMax),
      });
    } else {
      llms.push({ ...base, sharpness: 1, positionBias: [], fallback: [] });
    }
  }
  const items: BundleItem[] = bank.items.map((it, i) => {
    const out: BundleItem = { id: it.id, key: it.key, nOptions: it.nOptions, a: [], c: [], difficulty: diff[i]! };
    if (it.benchmark !== undefined) out.benchmark = it.benchmark;
    if (it.options !== undefined) out.options = it.options;
    if (it.source !== undefined) out.source = it.source;
    if (it.contentSha256 !== undefined) out.contentSha256 = it.contentSha256;
    if (L.kind === 'llm-nrm') {
      const io = bank.itemOffsets[i]!;
      out.a = centered(x, L.a + io, it.nOptions);
      out.c = centered(x, L.c + io, it.nOptions);
    } else {
      out.irt = {
        discrimination: L.pl >= 2 ? x[L.slope + i]! : 1,
        intercept: x[L.intercept + i]!,
        guess: L.pl >= 3 ? sigmoid(x[L.guess + i]!) : 0,
        upper: L.pl >= 4 ? 1 - sigmoid(x[L.slip + i]!) : 1,
      };
    }
    return out;
  });
  let cells = 0;
  for (let t = 0; t < bank.observed.length; t++) cells += bank.observed[t]!;
  return {
    schemaVersion: 1,
    model: result.model,
    parts: { ...result.parts },
    priors: { ...result.priors },
    kMax: bank.kMax,
    llms,
    items,
    globals: L.kind === 'llm-nrm' ? { w0: x[L.w0]!, kappa: softplus(x[L.kbar]!) } : { w0: 0, kappa: 0 },
    fit: {
      model: result.model, loss: result.loss, iterations: result.iterations, passes: result.passes, seconds: result.seconds,
      converged: result.converged, reason: result.reason, optimizer: result.optimizer, engine: result.engine, cells,
    },
    provenance: { tool: 'llm-nrm', createdAt: provenance.createdAt ?? new Date().toISOString(), ...provenance },
  };
}

/** The bundle's items as ItemSpecs, in bundle order (for `bankFromRecords({items})`). */
export function bundleItems(bundle: CalibrationBundle): ItemSpec[] {
  return bundle.items.map((it) => {
    const s: ItemSpec = { id: it.id, key: it.key, nOptions: it.nOptions };
    if (it.benchmark !== undefined) s.benchmark = it.benchmark;
    if (it.options !== undefined) s.options = it.options;
    if (it.source !== undefined) s.source = it.source;
    if (it.contentSha256 !== undefined) s.contentSha256 = it.contentSha256;
    return s;
  });
}

/**
 * The bundle's parameters laid out for `bank` (whose items are the bundle's, in order, e.g. built
 * with `bankFromRecords(records, {items: bundleItems(bundle)})`). LLMs of the bank found in the
 * bundle get their calibrated values; others start at theta 0, sharpness 1, no bias or fallback.
 */
export function bundleParameters(bundle: CalibrationBundle, bank: ResponseBank): { layout: Layout; x: Float64Array } {
  if (bank.items.length !== bundle.items.length || bank.items.some((it, i) => it.id !== bundle.items[i]!.id)) {
    throw new LlmNrmError('INVALID_OPTION', 'the bank items differ from the bundle items; build the bank with { items: bundleItems(bundle) }');
  }
  const byId = new Map(bundle.llms.map((l) => [l.id, l]));
  if (isNrmFamily(bundle.model)) {
    const parts = bundle.model === 'llm-nrm' ? bundle.parts : { sharpness: false, position: false, fallback: false };
    const L = llmNrmLayout(bank, parts);
    if (L.kMax !== bundle.kMax) throw new LlmNrmError('INVALID_BUNDLE', `bundle kMax ${bundle.kMax} differs from its items' ${L.kMax}`);
    const x = new Float64Array(L.size);
    bank.models.forEach((id, j) => {
      const l = byId.get(id);
      x[L.theta + j] = l?.theta ?? 0;
      x[L.sbar + j] = softplusInv(l?.sharpness ?? 1);
      for (let k = 0; k < L.kMax; k++) {
        x[L.delta + j * L.kMax + k] = l?.positionBias[k] ?? 0;
        x[L.rho + j * L.kMax + k] = l?.fallback[k] ?? 0;
      }
    });
    bundle.items.forEach((it, i) => {
      const io = bank.itemOffsets[i]!;
      for (let k = 0; k < it.nOptions; k++) {
        x[L.a + io + k] = it.a[k]!;
        x[L.c + io + k] = it.c[k]!;
      }
    });
    x[L.w0] = bundle.globals.w0;
    x[L.kbar] = softplusInv(Math.max(bundle.globals.kappa, 1e-12));
    return { layout: L, x };
  }
  const pl = Number(bundle.model[0]) as 1 | 2 | 3 | 4;
  const L = binaryLayout(bank, pl);
  const x = new Float64Array(L.size);
  bank.models.forEach((id, j) => {
    x[L.theta + j] = byId.get(id)?.theta ?? 0;
  });
  const logit = (p: number) => Math.log(Math.max(p, 1e-12) / Math.max(1 - p, 1e-12));
  bundle.items.forEach((it, i) => {
    const irt = it.irt!;
    x[L.slope + i] = irt.discrimination;
    x[L.intercept + i] = irt.intercept;
    x[L.guess + i] = pl >= 3 ? logit(irt.guess) : 0;
    x[L.slip + i] = pl >= 4 ? logit(1 - irt.upper) : 0;
  });
  return { layout: L, x };
}
