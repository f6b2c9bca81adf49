import { correctness, type ResponseBank } from './bank.js';
import { LlmNrmError } from '../errors.js';
import type { FitResult } from '../fit/fit.js';
import { familyOfLayout, getFamily, itemDifficulties } from '../model/registry.js';
import type { Layout } from '../model/layout.js';
import schema from '../schema/calibration-bundle.schema.json' with { type: 'json' };
import { validate as schemaValidate } from '../generated/bundleValidator.js';
import type { ItemSpec } from '../model/types.js';
import type { BundleItem, BundleLlm, CalibrationBundle } from './bundleFormat.js';

/** JSON Schema of the bundle, as published in the package (`@llm-nrm/core/schema`). */
export const CALIBRATION_BUNDLE_SCHEMA: object = schema;
export const BUNDLE_SCHEMA_VERSION = 1;

// The schema compiled to standalone code at build time (scripts/build-validator.mjs): no ajv at run time.
const validator = schemaValidate as ((d: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: unknown }[] | null };

/** Validate a parsed bundle against the JSON Schema; throws INVALID_BUNDLE naming the first problems. */
export function validateBundle(value: unknown, source = 'bundle'): CalibrationBundle {
  if (!validator(value)) {
    const errs = (validator.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    throw new LlmNrmError('INVALID_BUNDLE', `${source} is not a valid calibration bundle (schemaVersion ${BUNDLE_SCHEMA_VERSION}): ${errs.join('; ')}`);
  }
  const b = value as CalibrationBundle;
  // Cross-field checks JSON Schema cannot express: option-level families carry a, c per option and
  // per-position LLM parameters; binary ones irt per item.
  const optionLevel = getFamily(b.model, b.parts).kind === 'option-level';
  for (const it of b.items) {
    if (it.key >= it.nOptions)
      throw new LlmNrmError('INVALID_BUNDLE', `${source}: item ${JSON.stringify(it.id)} key ${it.key} out of range (${it.nOptions} options)`);
    if (optionLevel && (it.a.length !== it.nOptions || it.c.length !== it.nOptions)) {
      throw new LlmNrmError(
        'INVALID_BUNDLE',
        `${source}: item ${JSON.stringify(it.id)} has ${it.a.length} slopes and ${it.c.length} intercepts for ${it.nOptions} options`,
      );
    }
    if (!optionLevel && it.irt === undefined)
      throw new LlmNrmError('INVALID_BUNDLE', `${source}: item ${JSON.stringify(it.id)} lacks irt parameters for model ${b.model}`);
  }
  for (const l of b.llms) {
    if (optionLevel && (l.positionBias.length !== b.kMax || l.fallback.length !== b.kMax)) {
      throw new LlmNrmError('INVALID_BUNDLE', `${source}: LLM ${JSON.stringify(l.id)} has ${l.positionBias.length} position biases, expected kMax = ${b.kMax}`);
    }
  }
  return b;
}

/** Parse and validate bundle JSON text. */
export function parseBundle(text: string, source = 'bundle'): CalibrationBundle {
  let v: unknown;
  // Said as such: JSON.parse's "Unexpected end of JSON input" hides that there is nothing there.
  if (text.trim() === '') throw new LlmNrmError('EMPTY', `${source}: the file is empty: no calibration bundle (write one with llm-nrm fit)`);
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new LlmNrmError('INVALID_BUNDLE', `${source} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  return validateBundle(v, source);
}

/** Build the bundle of a fit (sum-to-zero parameters, human-scale sharpness and kappa). */
export function toBundle(
  result: FitResult,
  provenance: { version: string; createdAt?: string; inputs?: { path: string; sha256: string }[]; seed?: number; command?: string },
): CalibrationBundle {
  const bank = result.bank;
  const L = result.layout;
  const x = result.x;
  const family = familyOfLayout(L);
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const y = correctness(bank);
  const diff = itemDifficulties(bank, L, x);
  const llms: BundleLlm[] = [];
  // Accuracy counts keyed items only: a key-free item's anchor is no key (it is left out, and with
  // no keyed item at all so is the accuracy).
  const keyedCol = Uint8Array.from(bank.colItem, (i) => (bank.items[i]!.keyFree === true ? 0 : 1));
  const keyFree = bank.items.reduce((s, it) => s + (it.keyFree === true ? 1 : 0), 0);
  for (let j = 0; j < J; j++) {
    let right = 0;
    let n = 0;
    let nKeyed = 0;
    for (let c = 0; c < nC; c++) {
      const v = y[j * nC + c]!;
      if (v === 255) continue;
      n++;
      if (!keyedCol[c]) continue;
      right += v;
      nKeyed++;
    }
    const se = result.se[j]!;
    const base = {
      id: bank.models[j]!,
      theta: x[L.theta + j]!,
      se: Number.isFinite(se) ? se : null,
      ...(se === Infinity ? { identified: false } : {}),
      ...(keyFree < bank.items.length ? { accuracy: nKeyed > 0 ? right / nKeyed : 0 } : {}),
      cells: n,
    };
    llms.push({ ...base, ...family.bundleLlm(L, x, j) });
  }
  const items: BundleItem[] = bank.items.map((it, i) => {
    const p = family.bundleItem(bank, L, x, i);
    const out: BundleItem = {
      id: it.id,
      key: it.key,
      ...(it.keyFree === true ? { keyFree: true as const } : {}),
      nOptions: it.nOptions,
      a: p.a,
      c: p.c,
      difficulty: diff[i]!,
    };
    if (it.benchmark !== undefined) out.benchmark = it.benchmark;
    if (it.options !== undefined) out.options = it.options;
    if (it.source !== undefined) out.source = it.source;
    if (it.contentSha256 !== undefined) out.contentSha256 = it.contentSha256;
    if (p.irt !== undefined) out.irt = p.irt;
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
    globals: family.bundleGlobals(L, x),
    fit: {
      model: result.model,
      loss: result.loss,
      iterations: result.iterations,
      passes: result.passes,
      seconds: result.seconds,
      converged: result.converged,
      reason: result.reason,
      distance: Number.isFinite(result.distance) ? result.distance : null,
      optimizer: result.optimizer,
      engine: result.engine,
      cells,
      ...(keyFree > 0 ? { keyFree } : {}),
      ...(result.seMode ? { seMode: result.seMode } : {}),
    },
    provenance: { tool: 'llm-nrm', createdAt: provenance.createdAt ?? new Date().toISOString(), ...provenance },
  };
}

/** The bundle's items as ItemSpecs, in bundle order (for `bankFromRecords({items})`). */
export function bundleItems(bundle: CalibrationBundle): ItemSpec[] {
  return bundle.items.map((it) => {
    const s: ItemSpec = { id: it.id, key: it.key, nOptions: it.nOptions };
    if (it.keyFree === true) s.keyFree = true;
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
  return getFamily(bundle.model, bundle.parts).fromBundle(bundle, bank);
}
