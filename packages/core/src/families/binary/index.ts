import { correctness } from '../../bank.js';
import { LlmNrmError } from '../../errors.js';
import { binaryLayout, type BinaryLayout, type Layout } from '../../layout.js';
import { NO_PARTS } from '../../types.js';
import type { ModelFamily } from '../family.js';
import { binaryBundleMapping } from './bundle.js';
import { binaryCurvature } from './curvature.js';
import { binaryCells } from './kernel.js';
import { binaryFreeMask } from './layout.js';
import { binaryObjective } from './objective.js';
import { binaryKeyCurve, binaryPredictor } from './predict.js';
import { binaryStart } from './start.js';

function asBinary(layout: Layout): BinaryLayout {
  if (layout.kind !== 'binary') throw new LlmNrmError('INVALID_OPTION', `expected a binary layout, got ${layout.kind}`);
  return layout;
}

/** Binary IRT on correctness y_ji = [argmax q_ji = key] with 1 to 4 item parameters. */
export function binaryFamily(pl: 1 | 2 | 3 | 4): ModelFamily {
  return {
    name: `${pl}pl`,
    label: `${pl}PL`,
    parts: { ...NO_PARTS },
    optionLevel: false,
    hardened: false,
    itemLogits: null,
    keyCurve: (layout, x, i, theta, out) => binaryKeyCurve(asBinary(layout), x, i, theta, out),
    sharpnessIndex: null,
    // 1PL has no slope to trade against theta's scale: the N(0, 1) prior pins it.
    fleetIdentification: pl === 1 ? 'prior' : 'standardize',
    prepare: (bank) => bank,
    layout: (bank) => binaryLayout(bank, pl),
    start: (bank, layout) => binaryStart(bank, asBinary(layout)),
    objective: (bank, layout, priors) => binaryObjective(bank, asBinary(layout), correctness(bank), priors),
    curvature: (bank, layout, priors) => {
      const L = asBinary(layout);
      const y = correctness(bank);
      const cells = binaryCells(bank, L, y);
      return (x, free, opts) => binaryCurvature(bank, L, x, free, priors, y, opts, cells);
    },
    // 3PL and 4PL (packages/engine-wasm/BENCHMARKS.md, "Binary kernel, sixth session"): engines may
    // use their own exp and log (engine-wasm's 'simd' pass, about 2x cheaper per pass), and the CV's
    // relative-tolerance stop counts only within 1 (4PL) or 3 (3PL) SEs of the optimum. Under the
    // fast pass 4PL's tolerance stop fired mid-crawl at 52.8 SE on a 189 x 2,000 CV fold; bounded, its
    // five folds end with every held-out figure better than core's bits give, and 3PL's too (every
    // 3PL stop measured is within 2.3 SE, so its bound changes none of them). 1PL and 2PL keep core's
    // bits: their fits are cheap, and 2PL's CV moved by 1e-14 the wrong way.
    ...(pl >= 3 ? { fastKernel: true, toleranceDistance: pl === 4 ? 1 : 3 } : {}),
    predictor: (bank, layout, x, wrongShares) => binaryPredictor(bank, asBinary(layout), x, wrongShares),
    difficulties: (bank, layout, x) => {
      const L = asBinary(layout);
      const b = new Float64Array(bank.items.length);
      for (let i = 0; i < b.length; i++) {
        const a = pl >= 2 ? x[L.slope + i]! : 1;
        b[i] = -x[L.intercept + i]! / (Math.abs(a) > 1e-9 ? a : 1e-9);
      }
      return b;
    },
    restart: () => null,
    degenerate: null,
    llmIndices: (layout, j) => [asBinary(layout).theta + j],
    freeMask: (layout) => binaryFreeMask(asBinary(layout)),
    ...binaryBundleMapping((bank) => binaryLayout(bank, pl), asBinary),
  };
}
