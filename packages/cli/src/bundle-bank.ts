import { bundleItems, emptyBank, bundleParameters, type CalibrationBundle, type Layout, type ResponseBank } from '@llm-nrm/core';

/**
 * A data-free bank over a bundle's LLMs and items (one identity-order column per item, nothing
 * observed): enough for the information, selection and quality measures, which read item and LLM
 * parameters only.
 */
export function bundleBank(bundle: CalibrationBundle): { bank: ResponseBank; layout: Layout; x: Float64Array } {
  const items = bundleItems(bundle);
  const bank = emptyBank(
    bundle.llms.map((l) => l.id),
    items,
    items.map((_, i) => i),
  );
  const { layout, x } = bundleParameters(bundle, bank);
  return { bank, layout, x };
}
