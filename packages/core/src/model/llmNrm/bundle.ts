import type { ResponseBank } from '../../data/bank.js';
import type { CalibrationBundle } from '../../data/bundleFormat.js';
import { LlmNrmError } from '../../errors.js';
import { centered } from '../../internal/centered.js';
import { softplus, softplusInv, type Layout, type LlmNrmLayout } from '../layout.js';
import type { BundleMapping, OptionLevelFamily } from '../family.js';

/**
 * LLM-NRM/NRM parameters on the bundle's scale and back: sharpness s_j = softplus(sbar_j) and
 * kappa = softplus(kbar) (paper.md: both positive), position bias, fallback and item a, c centred.
 */
export function llmNrmBundleMapping(
  layout: (bank: ResponseBank) => LlmNrmLayout,
  asLayout: (l: Layout) => LlmNrmLayout,
): BundleMapping & Pick<OptionLevelFamily, 'holdNuisance' | 'setSharpness'> {
  return {
    bundleLlm: (l, x, j) => {
      const L = asLayout(l);
      return {
        sharpness: L.parts.sharpness ? softplus(x[L.sbar + j]!) : 1,
        positionBias: centered(x, L.delta + j * L.kMax, L.kMax),
        fallback: centered(x, L.rho + j * L.kMax, L.kMax),
      };
    },
    bundleItem: (bank, l, x, i) => {
      const L = asLayout(l);
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      return { a: centered(x, L.a + io, K), c: centered(x, L.c + io, K) };
    },
    bundleGlobals: (l, x) => {
      const L = asLayout(l);
      return { w0: x[L.w0]!, kappa: softplus(x[L.kbar]!) };
    },
    fromBundle: (bundle: CalibrationBundle, bank: ResponseBank) => {
      const L = layout(bank);
      if (L.kMax !== bundle.kMax) throw new LlmNrmError('INVALID_BUNDLE', `bundle kMax ${bundle.kMax} differs from its items' ${L.kMax}`);
      const byId = new Map(bundle.llms.map((l) => [l.id, l]));
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
    },
    holdNuisance: (l, x, j, fleet) => {
      const L = asLayout(l);
      x[L.sbar + j] = fleet.sbar;
      for (let k = 0; k < L.kMax; k++) {
        x[L.delta + j * L.kMax + k] = fleet.delta[k]!;
        x[L.rho + j * L.kMax + k] = fleet.rho[k]!;
      }
    },
    setSharpness: (l, x, j, s) => {
      const L = asLayout(l);
      x[L.sbar + j] = softplusInv(s);
    },
  };
}
