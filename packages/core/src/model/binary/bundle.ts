import type { ResponseBank } from '../../data/bank.js';
import type { CalibrationBundle } from '../../data/bundleFormat.js';
import { sigmoid, type BinaryLayout, type Layout } from '../layout.js';
import type { BundleMapping } from '../family.js';

const logit = (p: number) => Math.log(Math.max(p, 1e-12) / Math.max(1 - p, 1e-12));

/**
 * 1PL-4PL parameters on the bundle's scale and back: discrimination, intercept, and the guess and
 * upper asymptotes as probabilities (sigmoid of their logits); no LLM nuisance, no globals.
 */
export function binaryBundleMapping(layout: (bank: ResponseBank) => BinaryLayout, asLayout: (l: Layout) => BinaryLayout): BundleMapping {
  return {
    bundleLlm: () => ({ sharpness: 1, positionBias: [], fallback: [] }),
    bundleItem: (_bank, l, x, i) => {
      const L = asLayout(l);
      return {
        a: [],
        c: [],
        irt: {
          discrimination: L.pl >= 2 ? x[L.slope + i]! : 1,
          intercept: x[L.intercept + i]!,
          guess: L.pl >= 3 ? sigmoid(x[L.guess + i]!) : 0,
          upper: L.pl >= 4 ? 1 - sigmoid(x[L.slip + i]!) : 1,
        },
      };
    },
    bundleGlobals: () => ({ w0: 0, kappa: 0 }),
    fromBundle: (bundle: CalibrationBundle, bank: ResponseBank) => {
      const L = layout(bank);
      const byId = new Map(bundle.llms.map((l) => [l.id, l]));
      const x = new Float64Array(L.size);
      bank.models.forEach((id, j) => {
        x[L.theta + j] = byId.get(id)?.theta ?? 0;
      });
      bundle.items.forEach((it, i) => {
        const irt = it.irt!;
        x[L.slope + i] = irt.discrimination;
        x[L.intercept + i] = irt.intercept;
        x[L.guess + i] = L.pl >= 3 ? logit(irt.guess) : 0;
        x[L.slip + i] = L.pl >= 4 ? logit(1 - irt.upper) : 0;
      });
      return { layout: L, x };
    },
  };
}
