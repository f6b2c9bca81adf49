// The 'quasi' standard errors of theta (what fit reports): the family's prior terms, the measured
// dispersion, the decomposition into noise and prior bias, and unidentified thetas. Their coverage
// on simulated fleets is fit.test.ts's (seeded) and bench/core/coverage.js's (every size).
import { describe, expect, it } from 'vitest';
import { getFamily } from '../model/registry.js';
import { fit } from './fit.js';
import { freeMask } from '../model/registry.js';
import { simulateFleet } from '../simulate/simulate.js';
import { cholesky, cholSolve } from '../internal/cholesky.js';
import { randomSource } from '../simulate/random.js';
import { inverseSpd, thetaStandardErrors } from './standardErrors.js';
import { twinBank } from './twinBias.js';

describe('theta standard errors', () => {
  it.each([
    ['all parts', {}],
    ['without sharpness', { sharpness: false }],
    ['without position', { position: false }],
    ['without fallback', { fallback: false }],
  ])('llmPrior equals the prior curvature the LLM blocks carry (%s)', (_, parts) => {
    const f = simulateFleet({ models: 5, items: 12, seed: 3 });
    const family = getFamily('llm-nrm', parts);
    const L = family.layout(f.bank);
    const x = Float64Array.from(f.truth);
    const all = new Uint8Array(L.size).fill(1);
    const priors = { llmSd: 1.5, sharpnessSd: 0.4 };
    const withPrior = family.curvature(f.bank, L, priors)(x, all).llm;
    const flat = family.curvature(f.bank, L, { llmSd: 1e9, sharpnessSd: 1e9 })(x, all).llm;
    for (let j = 0; j < 5; j++) {
      const pr = family.llmPrior!(L, x, priors, j);
      const P = pr.precision.length;
      for (let r = 0; r < P; r++) {
        for (let c = 0; c < P; c++) {
          const d = withPrior[j]![r * P + c]! - flat[j]![r * P + c]!;
          expect(d).toBeCloseTo(r === c ? pr.precision[r]! : 0, 9);
        }
        expect(pr.group[r]! > 0).toBe(pr.precision[r]! > 0);
      }
    }
  });

  it.each([
    ['all parts', {}],
    ['without sharpness', { sharpness: false }],
    ['without position', { position: false }],
    ['without fallback', { fallback: false }],
    ['nrm', { sharpness: false, position: false, fallback: false }],
  ])("the predictor's analytic logit derivative along a direction is central differences', its p cell's bits (%s)", (_, parts) => {
    const f = simulateFleet({ models: 6, items: 15, seed: 5, rotations: 2 });
    const family = getFamily('llm-nrm', parts);
    const L = family.layout(f.bank);
    const x = Float64Array.from(f.truth);
    const nC = f.bank.colItem.length;
    const v1 = new Float64Array(f.bank.kMax);
    const v2 = new Float64Array(f.bank.kMax);
    const dv = new Float64Array(f.bank.kMax);
    const p1 = new Float64Array(f.bank.kMax);
    const p2 = new Float64Array(f.bank.kMax);
    let worst = 0;
    let sameP = true;
    for (let j = 0; j < 6; j++) {
      // Every LLM parameter of j and both globals, with weights of both signs.
      const idx = Int32Array.from([...family.llmIndices(L, j), (L as { w0: number }).w0, (L as { kbar: number }).kbar]);
      const w = Float64Array.from(idx, (_t, a) => Math.sin(1.7 * a + j) * (1 + (a % 3)));
      const base = family.predictor(f.bank, L, x);
      const along = base.along!(j, idx, w)!;
      const h = 1e-5;
      const xp = Float64Array.from(x);
      const xm = Float64Array.from(x);
      idx.forEach((t, a) => {
        xp[t]! += h * w[a]!;
        xm[t]! -= h * w[a]!;
      });
      const up = family.predictor(f.bank, L, xp);
      const down = family.predictor(f.bank, L, xm);
      for (let c = 0; c < nC; c++) {
        const K = f.bank.colOffsets[c + 1]! - f.bank.colOffsets[c]!;
        up.logits!(j, c, v1);
        down.logits!(j, c, v2);
        along(c, p1, dv);
        base.cell(j, c, p2);
        for (let k = 0; k < K; k++) sameP &&= Object.is(p1[k], p2[k]);
        for (let k = 0; k < K; k++) worst = Math.max(worst, Math.abs(dv[k]! - (v1[k]! - v2[k]!) / (2 * h)) / (1 + Math.abs(dv[k]!)));
      }
    }
    expect(worst).toBeLessThan(1e-7);
    expect(sameP).toBe(true);
    // A direction over an item's parameter is not covered: the caller takes differences.
    expect(family.predictor(f.bank, L, x).along!(0, Int32Array.from([(L as { a: number }).a]), Float64Array.from([1]))).toBeNull();
  });

  it.each([
    ['all parts', {}, 1],
    ['all parts, every item under 2 rotations', {}, 2],
    ['without fallback', { fallback: false }, 1],
    ['nrm', { sharpness: false, position: false, fallback: false }, 1],
  ])("'quasi' SEs with the analytic derivative equal those by central differences to 1e-8 (%s)", (_, parts, rotations) => {
    const f = simulateFleet({ models: 20, items: 30, seed: 4, noise: 0.3, rotations });
    const r = fit(f.bank, { standardErrors: false, parts });
    // The same family with `along` by central differences of the logits (step 1e-4 over the direction's largest weight).
    const fam = r.family;
    const differences = {
      ...fam,
      predictor: (...a: Parameters<typeof fam.predictor>) => {
        const p = fam.predictor(...a);
        const [bank, layout, x] = a;
        const along = (j: number, idx: Int32Array, w: Float64Array) => {
          const h = 1e-4 / Math.max(...Array.from(w, Math.abs));
          const xp = Float64Array.from(x);
          const xm = Float64Array.from(x);
          idx.forEach((t, b) => {
            xp[t]! += h * w[b]!;
            xm[t]! -= h * w[b]!;
          });
          const up = fam.predictor(bank, layout, xp);
          const down = fam.predictor(bank, layout, xm);
          const v1 = new Float64Array(bank.kMax);
          const v2 = new Float64Array(bank.kMax);
          return (c: number, out: Float64Array, dv: Float64Array) => {
            p.cell(j, c, out);
            up.logits!(j, c, v1);
            down.logits!(j, c, v2);
            for (let k = 0; k < v1.length; k++) dv[k] = (v1[k]! - v2[k]!) / (2 * h);
          };
        };
        return { ...p, along };
      },
    };
    const opts = { profileItems: true, errorModel: 'quasi' as const };
    const a = thetaStandardErrors(fam, r.bank, r.layout, r.x, freeMask(r.layout), r.priors, 0, opts);
    const b = thetaStandardErrors(differences, r.bank, r.layout, r.x, freeMask(r.layout), r.priors, 0, opts);
    for (let j = 0; j < 20; j++) {
      expect(Number.isFinite(a.se[j]!)).toBe(true);
      expect(Math.abs(a.se[j]! / b.se[j]! - 1)).toBeLessThan(1e-8);
      expect(Math.abs(a.dispersion[j]! / b.dispersion[j]! - 1)).toBeLessThan(1e-8);
    }
    // Not the same computation: the two differ somewhere (else this test would compare one path with itself).
    expect(Array.from(a.dispersion).some((v, j) => v !== b.dispersion[j])).toBe(true);
  });

  it('measures the dispersion of soft responses (about noise^2) and keeps one draw (phi 1) for hard ones', () => {
    const phiAt = (noise: number, hard: number) => {
      const f = simulateFleet({ models: 30, items: 40, seed: 3, noise, hard });
      const r = fit(f.bank, { standardErrors: false });
      const o = thetaStandardErrors(r.family, r.bank, r.layout, r.x, freeMask(r.layout), r.priors, 0, { profileItems: true, errorModel: 'quasi' });
      const d = Array.from(o.dispersion).sort((a, b) => a - b);
      return { median: d[15]!, o };
    };
    const noisy = phiAt(0.3, 0);
    const quiet = phiAt(0.1, 0);
    // Hard cells: no fit needed, phi is 1 by construction wherever theta is identified.
    const h = simulateFleet({ models: 10, items: 20, seed: 3, hard: 1 });
    const hf = getFamily('llm-nrm');
    const hL = hf.layout(h.bank);
    const hard = { o: thetaStandardErrors(hf, h.bank, hL, h.truth, freeMask(hL), {}, 0, { profileItems: true, errorModel: 'quasi' }) };
    expect(noisy.median).toBeLessThan(0.1);
    expect(noisy.median).toBeGreaterThan(3 * quiet.median);
    for (const v of hard.o.dispersion) expect(v).toBe(1);
    // se^2 = phi x (noise part) + prior bias part, each part >= 0; the Fisher information is the same.
    for (let j = 0; j < 30; j++) {
      const { se, priorVariance, information, dispersion } = noisy.o;
      expect(Number.isFinite(se[j]!)).toBe(true);
      expect(priorVariance[j]!).toBeGreaterThanOrEqual(0);
      expect(se[j]! * se[j]!).toBeGreaterThanOrEqual(priorVariance[j]! * (1 - 1e-12));
      expect(se[j]! * se[j]!).toBeLessThanOrEqual(dispersion[j]! / information[j]! + priorVariance[j]! + 1e-15);
    }
  });

  it("'unbiased' spread reads the simulator's sharpness spread; 'measured' takes it for sharpness only; priorShift follows the twin's bias", () => {
    // log s ~ N(0, 0.35^2) in the simulator, prior sd 0.5: a spread of 0.49 prior variances. The
    // posterior moment stays near the prior's 1 where the data carry little (0.8 at 20 items).
    const f = simulateFleet({ models: 100, items: 41, seed: 41100 });
    const r = fit(f.bank, { standardErrors: false });
    const free = freeMask(r.layout);
    const at = (spread: 'posterior' | 'unbiased' | 'measured') =>
      thetaStandardErrors(r.family, r.bank, r.layout, r.x, free, r.priors, 0, { profileItems: true, errorModel: 'quasi', spread });
    const post = at('posterior');
    const unb = at('unbiased');
    const meas = at('measured');
    const SHARPNESS = 1;
    expect(unb.spread[SHARPNESS]).toBeGreaterThan(0.3);
    expect(unb.spread[SHARPNESS]).toBeLessThan(0.7);
    expect(post.spread[SHARPNESS]).toBeGreaterThan(unb.spread[SHARPNESS]! + 0.1);
    expect(meas.spread[SHARPNESS]).toBe(unb.spread[SHARPNESS]);
    for (let g = 2; g < post.spread.length; g++) expect(meas.spread[g]).toBe(post.spread[g]);
    expect(unb.spreadEvidence!.weight[SHARPNESS]).toBeGreaterThan(0);
    expect(post.spreadEvidence).toBeUndefined();
    // The SEs' data part is the same; only the prior term moves (smaller with the smaller spread).
    for (let j = 0; j < 100; j++) {
      expect(meas.se[j]! ** 2 - meas.priorVariance[j]!).toBeCloseTo(post.se[j]! ** 2 - post.priorVariance[j]!, 12);
      expect(meas.priorVariance[j]).toBeLessThan(post.priorVariance[j]!);
    }
    // The priors' first-order own shift is most of the noise-free twin's bias (correlation 0.84 here).
    const tw = fit(twinBank(r.bank, r.layout, r.x), { init: r.x, standardErrors: false, distanceTolerance: 0.1 });
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let j = 0; j < 100; j++) {
      const b = tw.x[j]! - r.x[j]!;
      const s = post.priorShift[j]!;
      sxy += b * s;
      sxx += s * s;
      syy += b * b;
    }
    expect(sxy / Math.sqrt(sxx * syy)).toBeGreaterThan(0.6);
  });

  it('fisher: se = 1 / sqrt(information), the same information as quasi', () => {
    const f = simulateFleet({ models: 8, items: 20, seed: 5 });
    const family = getFamily('llm-nrm');
    const L = family.layout(f.bank);
    const args = [family, f.bank, L, f.truth, freeMask(L), {}, 0] as const;
    const a = thetaStandardErrors(...args, { profileItems: true });
    const b = thetaStandardErrors(...args, { profileItems: true, errorModel: 'quasi' });
    for (let j = 0; j < 8; j++) {
      expect(a.se[j]).toBe(1 / Math.sqrt(a.information[j]!));
      expect(b.information[j]).toBe(a.information[j]);
      expect(a.dispersion[j]).toBe(1);
      expect(b.se[j]!).toBeLessThan(a.se[j]!);
    }
  });

  it('keeps an unidentified theta (every cell in fallback mode) at an infinite SE, its peers finite', () => {
    const f = simulateFleet({ models: 6, items: 12, seed: 4 });
    const family = getFamily('llm-nrm');
    const L = family.layout(f.bank);
    const x = Float64Array.from(f.truth);
    x[L.theta + 2] = -500; // G = sigmoid(w0 - kappa (theta - b)) = 1: the fallback answers everything
    const o = thetaStandardErrors(family, f.bank, L, x, freeMask(L), {}, 0, { profileItems: true, errorModel: 'quasi' });
    expect(o.se[2]).toBe(Infinity);
    for (const j of [0, 1, 3, 4, 5]) expect(Number.isFinite(o.se[j]!)).toBe(true);
  });
});

describe('inverseSpd', () => {
  it('equals cholSolve of every unit vector bit for bit (its forward solve skips the leading zeros), SPD and jittered blocks of 1 to 12', () => {
    const rng = randomSource(77);
    let jittered = 0;
    for (let n = 1; n <= 12; n++)
      for (let rep = 0; rep < 20; rep++) {
        // B B^T + d I: positive definite for d > 0; d < 0 sometimes indefinite (cholesky's jitter).
        const B = Float64Array.from({ length: n * n }, () => rng.uniform() - 0.5);
        const d = rep % 4 === 3 ? -0.5 : 1e-3 * rep;
        const H = new Float64Array(n * n);
        for (let r = 0; r < n; r++)
          for (let c = 0; c < n; c++) {
            let acc = r === c ? d : 0;
            for (let k = 0; k < n; k++) acc += B[r * n + k]! * B[c * n + k]!;
            H[r * n + c] = acc;
          }
        const L = cholesky(H, n);
        // cholesky shifted the diagonal (an indefinite H): (L L^T)_rr above H_rr.
        let shift = 0;
        for (let r = 0; r < n; r++) {
          let acc = 0;
          for (let k = 0; k <= r; k++) acc += L[r * n + k]! * L[r * n + k]!;
          shift = Math.max(shift, acc - H[r * n + r]!);
        }
        if (shift > 1e-9) jittered++;
        const got = inverseSpd(H);
        for (let c = 0; c < n; c++) {
          const e = new Float64Array(n);
          e[c] = 1;
          cholSolve(L, n, e);
          for (let r = 0; r < n; r++) expect(Object.is(got[r * n + c], e[r]), `n ${n}, rep ${rep}, (${r}, ${c})`).toBe(true);
        }
      }
    expect(jittered).toBeGreaterThan(0);
  });
});
