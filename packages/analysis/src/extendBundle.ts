import {
  LlmNrmError,
  fit,
  getFamily,
  toBundle,
  type BundleItem,
  type BundleWarning,
  type CalibrationBundle,
  type Engine,
  type FitResult,
  type OptimizeProgress,
  type ResponseBank,
} from '@llm-nrm/core';
import { itemQuality, type ItemQuality } from './itemQuality.js';

/** How `extendBundle` fits the new items and what the new bundle's provenance records. */
export interface ExtendBundleOptions {
  engine?: Engine | string;
  /** L-BFGS iteration cap (core's default otherwise). */
  maxIterations?: number;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  /** The tool that extends: its version, the inputs read (path, sha256), its command line. */
  provenance: { version: string; createdAt?: string; inputs?: { path: string; sha256: string }[]; command?: string };
}

/** A bundle extended with new items, and how they were fitted. */
export interface ExtendedBundle {
  /** The old bundle's parts as they were, the new items appended, provenance and warnings extended. */
  bundle: CalibrationBundle;
  /** The new items as the bundle holds them, in the bank's order. */
  items: BundleItem[];
  /** Item-quality flags of the new items (option-level families; [] for binary ones). */
  quality: ItemQuality[];
  /** The items-only fit (FitOptions.fixLlms): loss, iterations, convergence. */
  result: FitResult;
}

/**
 * Calibrate new items into a calibrated bank: fit their parameters with every LLM's (theta,
 * sharpness, position bias, fallback) and the globals (w0, kappa) held at the bundle's values
 * (core's `fixLlms`; paper.md's loss sums over cells, so given the LLMs each item is fitted on its
 * own column of responses, with the bundle's priors), and append them to a copy of the bundle.
 * The old items, LLMs, globals and fit diagnostics are copied unchanged; provenance keeps the
 * calibration's inputs and command and adds the extension's; an ITEMS_EXTENDED warning names the
 * new items, since the LLMs' thetas do not use their responses.
 *
 * `bank` holds the new items' responses; its LLMs must all be in the bundle and its item ids none
 * of the bundle's.
 */
export function extendBundle(bundle: CalibrationBundle, bank: ResponseBank, options: ExtendBundleOptions): ExtendedBundle {
  const known = new Set(bundle.llms.map((l) => l.id));
  const strangers = bank.models.filter((m) => !known.has(m));
  if (strangers.length > 0) {
    throw new LlmNrmError('INVALID_OPTION', `${strangers.length} LLMs are not in the bundle (its LLMs are held fixed): ${list(strangers)}`);
  }
  const old = new Set(bundle.items.map((it) => it.id));
  const taken = bank.items.map((it) => it.id).filter((id) => old.has(id));
  if (taken.length > 0) throw new LlmNrmError('DUPLICATE', `${taken.length} new item ids are already in the bundle: ${list(taken)}`);
  const family = getFamily(bundle.model, bundle.parts);
  let fitBank = bank;
  if (family.kind === 'option-level') {
    // Position bias and fallback are per displayed position 0..kMax-1: an item with more options
    // would need positions the calibration never saw; fewer just leave the bundle's last unused.
    const wide = bank.items.filter((it) => it.nOptions > bundle.kMax).map((it) => `${it.id} (${it.nOptions})`);
    if (wide.length > 0) {
      throw new LlmNrmError(
        'INVALID_OPTIONS',
        `${wide.length} new items have more options than the bundle's ${bundle.kMax} (its LLMs have no position bias beyond): ${list(wide)}`,
      );
    }
    fitBank = { ...bank, kMax: bundle.kMax };
  }
  // The LLMs' and globals' values from the bundle (mapped by id), the items at the family's own start.
  const { layout, x: calibrated } = family.fromBundle({ ...bundle, items: [] }, fitBank);
  const init = family.start(family.prepare(fitBank), layout);
  for (let j = 0; j < fitBank.models.length; j++) for (const t of family.llmIndices(layout, j)) init[t] = calibrated[t]!;
  if (layout.kind === 'llm-nrm') {
    init[layout.w0] = calibrated[layout.w0]!;
    init[layout.kbar] = calibrated[layout.kbar]!;
  }
  const result = fit(fitBank, {
    model: bundle.model,
    parts: bundle.parts,
    // The calibration's priors: new items are shrunk as the old ones were.
    ...(bundle.priors ? { priors: bundle.priors } : {}),
    init,
    fixLlms: true,
    standardErrors: false,
    ...(options.engine !== undefined ? { engine: options.engine } : {}),
    ...(options.maxIterations !== undefined ? { maxIterations: options.maxIterations } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const createdAt = options.provenance.createdAt ?? new Date().toISOString();
  const items = toBundle(result, { version: options.provenance.version, createdAt }).items;
  const quality = itemQuality(result.bank, result.layout, result.x);
  const ids = items.map((it) => it.id);
  const warning: BundleWarning = {
    code: 'ITEMS_EXTENDED',
    message:
      `${items.length} items added at ${createdAt} by an items-only fit with every LLM and the globals held at this calibration's values ` +
      `(${result.iterations} iterations, loss ${result.loss.toPrecision(8)}): the LLMs' thetas do not use these items' responses, and the fit diagnostics are the calibration's`,
    items: ids,
  };
  const p = bundle.provenance;
  const command = options.provenance.command;
  const out: CalibrationBundle = {
    ...bundle,
    items: [...bundle.items, ...items],
    provenance: {
      tool: p.tool,
      version: options.provenance.version,
      createdAt,
      inputs: [...(p.inputs ?? []), ...(options.provenance.inputs ?? [])],
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
      // What made the file: the calibration's command, then this one.
      ...(p.command !== undefined || command !== undefined ? { command: [p.command, command].filter((c) => c !== undefined).join(' && ') } : {}),
    },
    warnings: [...(bundle.warnings ?? []), warning],
  };
  return { bundle: out, items, quality, result };
}

/** Up to 10 names, then how many more. */
function list(names: readonly string[]): string {
  const shown = names.slice(0, 10).map((n) => JSON.stringify(n));
  return shown.join(', ') + (names.length > 10 ? `, and ${names.length - 10} more` : '');
}
