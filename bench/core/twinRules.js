#!/usr/bin/env node
// Rules for the SE's bias term from the fit's noise-free twins, compared on one cache of fits.
// Collect: per fleet (100 LLMs, seeds 1000 x items + seed0 + r, as coverage.js) the default fit, its
// twin b1 = theta(twin of the fit) - theta and the twin of the twin b2 = theta(twin of twin) - theta(twin)
// (each from the converged point, stopped at 0.1 SE), and per LLM the error against the standardised
// truth, the 'quasi' SE, its prior term and the prior's first-order own shift (priorShift).
//   node bench/core/twinRules.js --collect --items 6,20,41,200 --reps 10 --seed0 100 --out /tmp/twin100.json
// Evaluate: the coverage of each rule (below) per size, from one or more caches; --grid: every
// combination of each prior group's spread (posterior / unbiased moment / fixed) and twin term, best first.
//   node bench/core/twinRules.js /tmp/twin100.json [more.json ...] [--grid [--top 15]]
import { readFileSync, writeFileSync } from 'node:fs';
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);

if (args.includes('--collect')) {
  const sizes = opt('items', '6,20,41,200').split(',').map(Number);
  const reps = Number(opt('reps', '10'));
  const seed0 = Number(opt('seed0', '100'));
  const out = opt('out', '/tmp/twin.json');
  const fleets = [];
  for (const items of sizes) {
    for (let r = 0; r < reps; r++) {
      const seed = 1000 * items + seed0 + r;
      const f = core.simulateFleet({ models: 100, items, seed });
      const t0 = performance.now();
      const res = core.fit(f.bank);
      const t1 = performance.now();
      const L = res.layout;
      const sep = core.thetaStandardErrors(res.family, res.bank, L, res.x, core.freeMask(L), res.priors, 0, { profileItems: true, errorModel: 'quasi' });
      const seu = core.thetaStandardErrors(res.family, res.bank, L, res.x, core.freeMask(L), res.priors, 0, {
        profileItems: true,
        errorModel: 'quasi',
        spread: 'unbiased',
      });
      // Each prior group's part of the prior term (pv = part0 + sum_g rho_g part_g).
      const parts = [0, 1, 2, 3].map((g) => {
        const rho = new Float64Array(4);
        if (g > 0) rho[g] = 1;
        return core.thetaStandardErrors(res.family, res.bank, L, res.x, core.freeMask(L), res.priors, 0, {
          profileItems: true,
          errorModel: 'quasi',
          spread: rho,
        }).priorVariance;
      });
      const tw1 = core.fit(core.twinBank(res.bank, L, res.x), { init: res.x, standardErrors: false, distanceTolerance: 0.1 });
      const t2 = performance.now();
      const tw2 = core.fit(core.twinBank(res.bank, L, tw1.x), { init: tw1.x, standardErrors: false, distanceTolerance: 0.1 });
      const t3 = performance.now();
      const truth = core.standardized(f.truth, 100);
      const J = 100;
      const rec = {
        spread: Array.from(sep.spread),
        spreadU: Array.from(seu.spread),
        excess: Array.from(seu.spreadEvidence.excess.slice(0, 4)),
        weight: Array.from(seu.spreadEvidence.weight.slice(0, 4)),
        items,
        seed,
        fitSeconds: (t1 - t0) / 1000,
        fitPasses: res.passes,
        twin1: [tw1.passes, (t2 - t1) / 1000],
        twin2: [tw2.passes, (t3 - t2) / 1000],
      };
      for (const k of ['e', 'se', 'pv', 'shift', 'b1', 'b2', 'seU', 'pvU', 'theta', 'part1', 'part2', 'part3']) rec[k] = [];
      for (let j = 0; j < J; j++) {
        rec.e.push(res.x[j] - truth[j]);
        rec.se.push(res.se[j]);
        rec.pv.push(sep.priorVariance[j]);
        rec.shift.push(sep.priorShift[j]);
        rec.b1.push(tw1.x[j] - res.x[j]);
        rec.b2.push(tw2.x[j] - tw1.x[j]);
        rec.seU.push(seu.se[j]);
        rec.theta.push(res.x[j]);
        for (const g of [1, 2, 3]) rec[`part${g}`].push(parts[g][j] - parts[0][j]);
        rec.pvU.push(seu.priorVariance[j]);
      }
      fleets.push(rec);
      console.error(`${items} items seed ${seed}: fit ${rec.fitSeconds.toFixed(1)} s (${res.passes} passes), twins ${tw1.passes} + ${tw2.passes} passes`);
      writeFileSync(out, JSON.stringify(fleets));
    }
  }
  process.exit(0);
}

// Rules: each gives the interval's half-width / 1.96 for one LLM from (se^2, pv, shift, b1, b2) and
// the fleet's lambda = b1.b1 / b1.b2 (clipped to [1, 5]).
const rules = {
  default: (c) => c.s2,
  'max(pv, b1^2)': (c) => c.s2 - c.pv + Math.max(c.pv, c.b1 ** 2),
  'max(pv, (lam b1)^2)': (c) => c.s2 - c.pv + Math.max(c.pv, (c.lam * c.b1) ** 2),
  'pv + (lam (b1 - shift))^2': (c) => c.s2 + (c.lam * (c.b1 - c.shift)) ** 2,
  'pv + (lamR (b1 - shift))^2': (c) => c.s2 + (c.lamR * (c.b1 - c.shift)) ** 2,
  'pv + (b1 - shift)^2': (c) => c.s2 + (c.b1 - c.shift) ** 2,
  'max(pv, (lamR b1)^2)': (c) => c.s2 - c.pv + Math.max(c.pv, (c.lamR * c.b1) ** 2),
  'max(pv - shift^2, 0) + (lam b1)^2': (c) => c.s2 - c.pv + Math.max(0, c.pv - c.shift ** 2) + (c.lam * c.b1) ** 2,
  'max(pv, shift^2 + (lam (b1 - shift))^2)': (c) => c.s2 - c.pv + Math.max(c.pv, c.shift ** 2 + (c.lam * (c.b1 - c.shift)) ** 2),
  'max(pv, (lam (b1 - shift))^2)': (c) => c.s2 - c.pv + Math.max(c.pv, (c.lam * (c.b1 - c.shift)) ** 2),
  'U: default': (c) => c.s2U,
  'U: max(pv, b1^2)': (c) => c.s2U - c.pvU + Math.max(c.pvU, c.b1 ** 2),
  'U: max(pv, (lam b1)^2)': (c) => c.s2U - c.pvU + Math.max(c.pvU, (c.lam * c.b1) ** 2),
  'U: pv + b1^2': (c) => c.s2U + c.b1 ** 2,
  'U: pv + (lam b1)^2': (c) => c.s2U + (c.lam * c.b1) ** 2,
  'U: pv + (lamR (b1 - shift))^2': (c) => c.s2U + (c.lamR * (c.b1 - c.shift)) ** 2,
  'U: pv + (b1 - shift)^2': (c) => c.s2U + (c.b1 - c.shift) ** 2,
  'U: max(pv, (lamR b1)^2)': (c) => c.s2U - c.pvU + Math.max(c.pvU, (c.lamR * c.b1) ** 2),
};
// pv_a = a pv + (1 - a) pvU: the prior term at a spread between the two moments (pv is linear in rho).
for (const a of [0.25, 0.5, 0.75]) {
  const pvA = (c) => a * c.pv + (1 - a) * c.pvU;
  rules[`mix ${a}: default`] = (c) => c.s2 - c.pv + pvA(c);
  rules[`mix ${a}: max(pv, (lam b1)^2)`] = (c) => c.s2 - c.pv + Math.max(pvA(c), (c.lam * c.b1) ** 2);
  rules[`mix ${a}: pv + (lam b1)^2`] = (c) => c.s2 - c.pv + pvA(c) + (c.lam * c.b1) ** 2;
  rules[`mix ${a}: pv + b1^2`] = (c) => c.s2 - c.pv + pvA(c) + c.b1 ** 2;
}
// seMode 'twin' (what fit builds): the sharpness spread by the unbiased moment, the others by the
// posterior moment (spread 'measured'), and max(prior term, TWIN_BIAS_SCALE b1^2).
// Every group's unbiased moment shrunk toward the prior's 1 by a pseudo-weight of 8 (in sum (1 - s)^2).
rules['shrunk spreads (8), max(pv, (lam b1)^2)'] = (c) => c.s2 - c.pv + Math.max(c.pvK, (c.lam * c.b1) ** 2);
rules["seMode 'twin': measured spread, max(pv, 2 b1^2)"] = (c) => c.s2 - c.pv + Math.max(c.pvM, core.TWIN_BIAS_SCALE * c.b1 ** 2);
const fleets = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--top'].includes(args[i - 1]))).flatMap((p) => JSON.parse(readFileSync(p, 'utf8')));
if (args.includes('--grid')) {
  // Every combination of each group's spread (sharpness, position, fallback) and the twin's term,
  // best first by the worst size's distance from 95%: how seMode 'twin' was chosen (tuning seeds).
  const lamOf = (f) => {
    let b11 = 0;
    let b12 = 0;
    for (let j = 0; j < f.e.length; j++) {
      b11 += f.b1[j] ** 2;
      b12 += f.b1[j] * f.b2[j];
    }
    return Math.min(5, Math.max(1, b11 / b12 || 1));
  };
  const sp = { U: (f) => f.spreadU[1], post: (f) => f.spread[1], mid: (f) => (f.spread[1] + f.spreadU[1]) / 2 };
  const po = {
    U: (f) => f.spreadU[2],
    post: (f) => f.spread[2],
    0.1: () => 0.1,
    0.2: () => 0.2,
    0.3: () => 0.3,
    0.5: () => 0.5,
    halfpost: (f) => f.spread[2] / 2,
  };
  const fa = { U: (f) => f.spreadU[3], post: (f) => f.spread[3] };
  const ex = {
    'max(pv, (lam b1)^2)': (pv, b, l) => Math.max(pv, (l * b) ** 2),
    'pv + b1^2': (pv, b) => pv + b * b,
    'pv + 2 b1^2': (pv, b) => pv + 2 * b * b,
    'pv + 3 b1^2': (pv, b) => pv + 3 * b * b,
    'pv + (lam b1)^2': (pv, b, l) => pv + (l * b) ** 2,
    'max(pv, 2 b1^2)': (pv, b) => Math.max(pv, 2 * b * b),
    'max(pv, 3 b1^2)': (pv, b) => Math.max(pv, 3 * b * b),
  };
  const sizes = [...new Set(fleets.map((f) => f.items))].sort((a, b) => a - b);
  const lams = fleets.map(lamOf);
  const rows = [];
  for (const [sn, sf] of Object.entries(sp))
    for (const [pn, pf] of Object.entries(po))
      for (const [fn, ff] of Object.entries(fa))
        for (const [en, ef] of Object.entries(ex)) {
          const h = {};
          const n = {};
          fleets.forEach((f, i) => {
            const r = [sf(f), pf(f), ff(f)];
            for (let j = 0; j < f.e.length; j++) {
              n[f.items] = (n[f.items] ?? 0) + 1;
              const pv = r[0] * f.part1[j] + r[1] * f.part2[j] + r[2] * f.part3[j];
              const ok = !Number.isFinite(f.se[j]) || Math.abs(f.e[j]) <= 1.96 * Math.sqrt(f.se[j] ** 2 - f.pv[j] + ef(pv, f.b1[j], lams[i]));
              if (ok) h[f.items] = (h[f.items] ?? 0) + 1;
            }
          });
          const c = sizes.map((s) => (100 * h[s]) / n[s]);
          rows.push([Math.max(...c.map((v) => Math.abs(v - 95))), `sharpness ${sn}, position ${pn}, fallback ${fn}; ${en}`, c]);
        }
  rows.sort((a, b) => a[0] - b[0]);
  console.log(`${'worst |c - 95|'}  rule  (${sizes.join(' / ')} items)`);
  for (const [w, name, c] of rows.slice(0, Number(opt('top', '15'))))
    console.log(`${w.toFixed(2).padStart(5)}  ${name.padEnd(64)} ${c.map((v) => `${v.toFixed(1)}%`).join(' ')}`);
  process.exit(0);
}
const sizes = [...new Set(fleets.map((f) => f.items))].sort((a, b) => a - b);
const hits = {};
const counts = {};
const lamsBy = {};
for (const f of fleets) {
  let b11 = 0;
  let b12 = 0;
  // lamR: the same ratio over the residual twin bias, the part the own prior shift does not explain.
  let r11 = 0;
  let r12 = 0;
  for (let j = 0; j < f.e.length; j++) {
    b11 += f.b1[j] ** 2;
    b12 += f.b1[j] * f.b2[j];
    r11 += (f.b1[j] - f.shift[j]) ** 2;
    r12 += (f.b1[j] - f.shift[j]) * f.b2[j];
  }
  const lam = Math.min(5, Math.max(1, b11 / b12 || 1));
  const lamR = Math.min(5, Math.max(1, r11 / r12 || 1));
  (lamsBy[f.items] ??= []).push(`${(b11 / b12).toFixed(2)}/${(r11 / r12).toFixed(2)}`);
  for (const [name, rule] of Object.entries(rules)) {
    const key = `${name}|${f.items}`;
    for (let j = 0; j < f.e.length; j++) {
      const se = f.se[j];
      counts[key] = (counts[key] ?? 0) + 1;
      if (!Number.isFinite(se)) {
        hits[key] = (hits[key] ?? 0) + 1;
        continue;
      }
      const pvM = f.spreadU[1] * f.part1[j] + f.spread[2] * f.part2[j] + f.spread[3] * f.part3[j];
      const rk = [1, 2, 3].map((g) => Math.max(0.01, (f.excess[g] + 8) / (f.weight[g] + 8)));
      const pvK = rk[0] * f.part1[j] + rk[1] * f.part2[j] + rk[2] * f.part3[j];
      const v = rule({ pvK, pvM, s2U: f.seU[j] ** 2, pvU: f.pvU[j], s2: se * se, pv: f.pv[j], shift: f.shift[j], b1: f.b1[j], b2: f.b2[j], lam, lamR });
      if (Math.abs(f.e[j]) <= 1.96 * Math.sqrt(Math.max(0, v))) hits[key] = (hits[key] ?? 0) + 1;
    }
  }
}
console.log(`${fleets.length} fleets; seeds ${[...new Set(fleets.map((f) => f.seed % 1000))].sort((a, b) => a - b).join(',')}`);
console.log(['rule'.padEnd(44), ...sizes.map((s) => `${s} items`.padStart(10))].join(' '));
for (const name of Object.keys(rules)) {
  console.log([name.padEnd(44), ...sizes.map((s) => `${((100 * (hits[`${name}|${s}`] ?? 0)) / counts[`${name}|${s}`]).toFixed(1)}%`.padStart(10))].join(' '));
}
for (const s of sizes) {
  const sp = fleets
    .filter((f) => f.items === s)
    .map((f) =>
      f.spreadU
        .slice(1)
        .map((v) => v.toFixed(2))
        .join('/'),
    );
  console.log(`unbiased spread per group at ${s} items: ${sp.join(' ')}`);
}
for (const s of sizes) console.log(`lambda (b1, residual) at ${s} items: ${lamsBy[s].join(' ')}`);
