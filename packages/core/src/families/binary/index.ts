import { correctness } from '../../bank.js';
import { LlmNrmError } from '../../errors.js';
import { binaryLayout, llmParamIndices, type BinaryLayout, type Layout } from '../../layout.js';
import { NO_PARTS } from '../../types.js';
import type { ModelFamily } from '../family.js';
import { binaryBundleMapping } from './bundle.js';
import { binaryCurvature } from './curvature.js';
import { binaryObjective } from './objective.js';
import { binaryPredictor } from './predict.js';
import { binaryStart } from './start.js';

function asBinary(layout: Layout): BinaryLayout {
  if (layout.kind !== 'binary') throw new LlmNrmError('INVALID_OPTION', `expected a binary layout, got ${layout.kind}`);
  return layout;
}

/** Binary IRT on correctness y_ji = [argmax q_ji = key] with 1 to 4 item parameters. */
export function binaryFamily(pl: 1 | 2 | 3 | 4): ModelFamily {
  return {
    name: `${pl}pl`,
    parts: { ...NO_PARTS },
    optionLevel: false,
    // 1PL has no slope to trade against theta's scale: the N(0, 1) prior pins it.
    fleetIdentification: pl === 1 ? 'prior' : 'standardize',
    prepare: (bank) => bank,
    layout: (bank) => binaryLayout(bank, pl),
    start: (bank, layout) => binaryStart(bank, asBinary(layout)),
    objective: (bank, layout, priors) => binaryObjective(bank, asBinary(layout), correctness(bank), priors),
    curvature: (bank, layout, priors) => {
      const L = asBinary(layout);
      const y = correctness(bank);
      return (x, free, opts) => binaryCurvature(bank, L, x, free, priors, y, opts);
    },
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
    llmIndices: (layout, j) => llmParamIndices(layout, j),
    ...binaryBundleMapping((bank) => binaryLayout(bank, pl), asBinary),
  };
}
