import { describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet } from '../simulate/simulate.js';
import { bankFromRecords } from '../data/bank.js';
import { fit } from '../fit/fit.js';
import { toBundle } from '../data/bundle.js';
import { FLEET_NUISANCE_BELOW, scoreResponses } from './score.js';
import { minimiseTheta, minimiseThetaSharpness } from './minimiseTheta.js';
import { fleetNuisance } from './scoreThetaAlone.js';
import { tsEngine, type Engine } from '../engines.js';

const fleet = simulateFleet({ models: 25, items: 150, seed: 8 });
const recs = [...bankRecords(fleet.bank)];
const held = fleet.bank.models.slice(20);
const calib = bankFromRecords(recs.filter((r) => !held.includes(r.model))).bank;
const bundle = toBundle(fit(calib, { model: 'llm-nrm', standardErrors: false }), { version: 'test' });
const fresh = recs.filter((r) => held.includes(r.model));
const tiny = fresh.filter((r) => Number(r.item.split('/')[1]) < 30);

describe('scoring with the nuisance parameters held at the fleet', () => {
  it('minimiseTheta finds the minimum of a quadratic and its SE', () => {
    const r = minimiseTheta((t) => ((t - 1.234) * (t - 1.234)) / (2 * 0.3 * 0.3));
    expect(r.theta).toBeCloseTo(1.234, 7);
    expect(r.se).toBeCloseTo(0.3, 5);
  });

  it('minimiseThetaSharpness gives the profile SE of theta: sqrt of (H^-1)_tt, sharpness estimated with it', () => {
    // f = 1/2 z' H z, z = (theta - 0.7, u - 0.2), with theta and u correlated.
    const [htt, htu, huu] = [20, 6, 4];
    const r = minimiseThetaSharpness((t, u) => {
      const a = t - 0.7;
      const b = u - 0.2;
      return 0.5 * (htt * a * a + 2 * htu * a * b + huu * b * b);
    });
    expect(r.theta).toBeCloseTo(0.7, 6);
    expect(r.u).toBeCloseTo(0.2, 5);
    const det = htt * huu - htu * htu;
    expect(r.se).toBeCloseTo(Math.sqrt(huu / det), 5);
    // Larger than the conditional SE (sharpness taken as known).
    expect(r.se).toBeGreaterThan(1 / Math.sqrt(htt) + 0.01);
  });

  it("'fleet' keeps bias, fallback and sharpness at the fleet's; 'sharpness' fits sharpness; 'auto' picks by item count", () => {
    const f = fleetNuisance(bundle);
    const asFleet = scoreResponses(bundle, tiny, { nuisance: 'fleet' });
    for (const l of asFleet.llms) {
      expect(l.nuisance).toBe('fleet');
      expect(l.items).toBe(30);
      expect(Math.log(l.sharpness)).toBeCloseTo(Math.log(Math.log1p(Math.exp(f.sbar))), 9);
      expect(l.se).toBeGreaterThan(0);
    }
    const asSharp = scoreResponses(bundle, tiny, { nuisance: 'sharpness' });
    expect(asSharp.llms.every((l) => l.nuisance === 'sharpness')).toBe(true);
    expect(asSharp.llms.some((l, j) => Math.abs(l.sharpness - asFleet.llms[j]!.sharpness) > 1e-3)).toBe(true);
    const auto = scoreResponses(bundle, tiny);
    expect(auto.llms.map((l) => [l.theta, l.nuisance])).toEqual(asSharp.llms.map((l) => [l.theta, 'sharpness']));
    expect(FLEET_NUISANCE_BELOW).toBe(100);
    const full = scoreResponses(bundle, fresh);
    expect(full.llms.every((l) => l.nuisance === 'fit' && l.items === 150)).toBe(true);
    // From 30 items the robust scores still order (pairwise agreement with the true abilities) the held-out LLMs like their full-bank scores.
    const truth = held.map((m) => fleet.truth[fleet.layout.theta + fleet.bank.models.indexOf(m)]!);
    const agree = (xs: number[]) => {
      let c = 0;
      let n = 0;
      for (let a = 0; a < xs.length; a++)
        for (let b = a + 1; b < xs.length; b++) {
          n++;
          if (Math.sign(xs[a]! - xs[b]!) === Math.sign(truth[a]! - truth[b]!)) c++;
        }
      return c / n;
    };
    expect(agree(full.llms.map((l) => l.theta))).toBeGreaterThanOrEqual(0.7);
    expect(agree(asSharp.llms.map((l) => l.theta))).toBeGreaterThanOrEqual(0.7);
  });

  it('runs the joint fit only for LLMs it scores, and an LLM scored alone is the same with or without one', () => {
    // Every LLM below FLEET_NUISANCE_BELOW items: no joint fit at all (its result would be overwritten).
    // The engine counts the objectives it is asked for: one per fit.
    let fits = 0;
    const counting: Engine = { name: 'counting', objective: (...a) => (fits++, tsEngine.objective(...a)) };
    const alone = scoreResponses(bundle, tiny, { engine: counting });
    expect(fits).toBe(0);
    expect(alone.converged).toBe(true);
    expect(alone.llms.every((l) => l.nuisance === 'sharpness' && Number.isFinite(l.se))).toBe(true);
    expect(Number.isFinite(alone.loss) && alone.loss > 0).toBe(true);
    // Two of them beside three LLMs with every item: those three are fitted jointly, the two keep
    // the very values they get alone.
    const few = held.slice(0, 2);
    const mixed = scoreResponses(bundle, [...tiny.filter((r) => few.includes(r.model)), ...fresh.filter((r) => !few.includes(r.model))], {
      engine: counting,
    });
    expect(fits).toBe(1);
    for (const id of held) {
      const m = mixed.llms.find((l) => l.id === id)!;
      if (few.includes(id)) expect(m).toEqual(alone.llms.find((l) => l.id === id));
      else expect(m.nuisance).toBe('fit');
    }
  });

  it("a run of only hard answers keeps sharpness 1 under 'sharpness' (as the calibration holds such an LLM's), theta still its own", () => {
    const hard = tiny.map(({ probs, ...r }) => ({ ...r, choice: probs!.indexOf(Math.max(...probs!)) }));
    const scored = scoreResponses(bundle, hard, { nuisance: 'sharpness' });
    for (const l of scored.llms) {
      expect(l.sharpness).toBe(1);
      expect(Number.isFinite(l.theta) && l.se > 0 && l.se < 3).toBe(true);
    }
    // Sharpness fitted to the same one-hot answers (given as probabilities with a hair of mass elsewhere)
    // runs up and pulls theta in: the hold is what keeps the run on the calibration's scale.
    const almost = tiny.map((r) => {
      const top = r.probs!.indexOf(Math.max(...r.probs!));
      const eps = 1e-6;
      return { ...r, probs: r.probs!.map((_, k) => (k === top ? 1 - eps * (r.probs!.length - 1) : eps)) };
    });
    const fitted = scoreResponses(bundle, almost, { nuisance: 'sharpness' });
    expect(fitted.llms.some((l) => l.sharpness > 1.5)).toBe(true);
    // A mixed run (one soft answer) is not hard-only: its sharpness is fitted.
    const mixed = scoreResponses(bundle, [...hard.slice(1).filter((r) => r.model === hard[0]!.model), tiny[0]!], { nuisance: 'sharpness' });
    expect(mixed.llms[0]!.sharpness).not.toBe(1);
  });
});
