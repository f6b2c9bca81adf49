import { correctness } from '../../data/bank.js';
import { requireKeys } from '../../data/requireKeys.js';
import { LlmNrmError } from '../../errors.js';
import { binaryLayout, type BinaryLayout, type Layout } from '../layout.js';
import { NO_PARTS } from '../types.js';
import type { BinaryFamily } from '../family.js';
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
export function binaryFamily(pl: 1 | 2 | 3 | 4): BinaryFamily {
  return {
    name: `${pl}pl`,
    label: `${pl}PL`,
    parts: { ...NO_PARTS },
    kind: 'binary',
    keyCurve: (layout, x, i, theta, out) => binaryKeyCurve(asBinary(layout), x, i, theta, out),
    // 1PL has no slope to trade against theta's scale: the N(0, 1) prior pins it.
    fleetIdentification: pl === 1 ? 'prior' : 'standardize',
    // Correctness needs a key: a key-free bank's anchors are no key (consensusKeys.ts).
    prepare: (bank) => {
      requireKeys(
        bank.items,
        `${pl}PL (correctness)`,
        'fit an option-level model (--model llm-nrm, nrm or nrm-hard), which needs none, or give every record its key',
      );
      return bank;
    },
    layout: (bank) => binaryLayout(bank, pl),
    start: (bank, layout) => binaryStart(bank, asBinary(layout)),
    objective: (bank, layout, priors) => binaryObjective(bank, asBinary(layout), correctness(bank), priors),
    curvature: (bank, layout, priors) => {
      const L = asBinary(layout);
      const y = correctness(bank);
      const cells = binaryCells(bank, L, y);
      return (x, free, opts) => binaryCurvature(bank, L, x, free, priors, y, opts, cells);
    },
    // 3PL and 4PL: engines may use their own exp and log (about 2x cheaper per pass), and the
    // relative-tolerance stop counts only within 1 (4PL) or 3 (3PL) SEs of the optimum (under the fast
    // pass 4PL's stop fired mid-crawl; packages/engine-wasm/BENCHMARKS.md). 1PL and 2PL keep core's bits.
    fastKernel: pl >= 3,
    toleranceDistance: pl === 4 ? 1 : pl === 3 ? 3 : Infinity,
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
    degenerate: () => false,
    llmIndices: (layout, j) => [asBinary(layout).theta + j],
    freeMask: (layout) => binaryFreeMask(asBinary(layout)),
    // Theta's prior only (the caller's): no grouped prior on an LLM's own parameters.
    llmPrior: () => ({ precision: new Float64Array(1), z: new Float64Array(1), group: new Uint8Array(1) }),
    ...binaryBundleMapping((bank) => binaryLayout(bank, pl), asBinary),
  };
}
