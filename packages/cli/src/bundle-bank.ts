import { readFile } from 'node:fs/promises';
import { LlmNrmError, bundleItems, bundleParameters, parseBundle, type CalibrationBundle, type Layout, type ResponseBank } from '@llm-nrm/core';

/** Read and validate a calibration bundle file. */
export async function readBundle(path: string): Promise<CalibrationBundle> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read bundle: ${(e as Error).message}`, { cause: e, file: path });
  }
  return parseBundle(text, path);
}

/**
 * A data-free bank over a bundle's LLMs and items (one identity-order column per item, nothing
 * observed): enough for the information, selection and quality measures, which read item and LLM
 * parameters only.
 */
export function bundleBank(bundle: CalibrationBundle): { bank: ResponseBank; layout: Layout; x: Float64Array } {
  const items = bundleItems(bundle);
  const I = items.length;
  const itemOffsets = new Int32Array(I + 1);
  const key = new Int32Array(I);
  let kMax = 0;
  items.forEach((it, i) => {
    itemOffsets[i + 1] = itemOffsets[i]! + it.nOptions;
    key[i] = it.key;
    kMax = Math.max(kMax, it.nOptions);
  });
  const J = bundle.llms.length;
  const bank: ResponseBank = {
    models: bundle.llms.map((l) => l.id),
    items,
    itemOffsets,
    key,
    kMax,
    colItem: Int32Array.from({ length: I }, (_, i) => i),
    colOffsets: itemOffsets.slice(),
    colPosition: null,
    q: new Float32Array(J * itemOffsets[I]!),
    observed: new Uint8Array(J * I),
    hard: new Uint8Array(J * I),
    leakage: null,
  };
  const { layout, x } = bundleParameters(bundle, bank);
  return { bank, layout, x };
}
