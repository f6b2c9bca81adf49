// Predicted full-bank accuracy of adaptive runs (issue 29), leave-fold-out on the NAEP fixture: per
// LLM fold a calibration without it (LLM-NRM), each held-out LLM replays its recorded answers
// through analysis' adaptiveStep until the SE stop, and its full-bank accuracy is predicted
//   curve: the calibrated accuracy curve at theta with theta's SE (what an adaptive package does), or
//   run model: the tiny packages' run-accuracy model fitted on the training LLMs scored on the pool,
//              fed the adaptive run's own accuracy (what an adaptive package did before).
// Prints MAE, worst error and 90% coverage against the observed accuracy over all its answers.
//   node bench/adaptive-accuracy.mjs [--se 0.3] [--folds 5]
// Build first (npm run build).
import { argmaxAccuracies, bankFromRecords, fit, OVERALL, toBundle } from '@llm-nrm/core';
import {
  accuracyCurve,
  adaptiveStep,
  fitRunAccuracy,
  predictAccuracy,
  predictRunAccuracy,
  tinyRunRecords,
  tinyRunScores,
  TINY_NUISANCE,
} from '@llm-nrm/analysis';
import { naepRecords } from './benchFleet.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const se = arg('se', 0.3);
const folds = arg('folds', 5);
const records = await naepRecords();
const models = [...new Set(records.map((r) => r.model))];
const items = bankFromRecords(records).bank.items;
const observed = argmaxAccuracies(records, items);
const chance = (ids) => ids.reduce((s, id) => s + 1 / items.find((it) => it.id === id).nOptions, 0) / ids.length;
const out = { curve: [], run: [] };
for (let f = 0; f < folds; f++) {
  const held = models.filter((_, j) => j % folds === f);
  const train = records.filter((r) => !held.includes(r.model));
  const bundle = toBundle(fit(bankFromRecords(train).bank, { model: 'llm-nrm' }), { version: 'bench' });
  const ids = bundle.items.map((it) => it.id);
  const full = bundle.llms.map((l) => observed.get(l.id).get(OVERALL));
  const F = accuracyCurve(
    bundle.llms.map((l) => l.theta),
    full,
  );
  // The run model as publish fits it for a package whose items are the whole pool.
  const scores = tinyRunScores(bundle, tinyRunRecords(train, new Set(ids)), TINY_NUISANCE);
  const poolAcc = argmaxAccuracies(tinyRunRecords(train, new Set(ids)), bundle.items);
  const rows = bundle.llms.map((l, j) => ({
    fullTheta: l.theta,
    theta: scores.get(l.id).theta,
    logSharpness: scores.get(l.id).logSharpness,
    tinyAccuracy: poolAcc.get(l.id).get(OVERALL),
    fullAccuracy: full[j],
  }));
  const { curve: _c, ...model } = fitRunAccuracy(rows, { chanceTiny: chance(ids), chanceFull: chance(ids), items: ids.length });
  for (const m of held) {
    const book = new Map(
      tinyRunRecords(
        records.filter((r) => r.model === m),
        new Set(ids),
      ).map((r) => [r.item, r]),
    );
    const answers = [];
    let st;
    for (;;) {
      st = adaptiveStep(bundle, answers, { se });
      if (st.stop !== null) break;
      for (const id of st.next) if (book.has(id)) answers.push(book.get(id));
    }
    const own = argmaxAccuracies(answers, bundle.items).get(m).get(OVERALL);
    const truth = observed.get(m).get(OVERALL);
    const a = predictAccuracy(F, st.theta, st.se);
    const b = predictRunAccuracy(model, F, { theta: st.theta, logSharpness: Math.log(st.sharpness), tinyAccuracy: own });
    out.curve.push({ m, truth, ...a });
    out.run.push({ m, truth, ...b });
    process.stderr.write(
      `fold ${f + 1}/${folds} ${m}: ${answers.length} items, own ${(100 * own).toFixed(1)}%, true ${(100 * truth).toFixed(1)}%, curve ${(100 * a.accuracy).toFixed(1)}%, run model ${(100 * b.accuracy).toFixed(1)}%\n`,
    );
  }
}
for (const [name, rows] of Object.entries(out)) {
  const err = rows.map((r) => Math.abs(r.accuracy - r.truth) * 100);
  const cover = rows.filter((r) => r.low <= r.truth && r.truth <= r.high).length;
  const worst = rows[err.indexOf(Math.max(...err))];
  console.log(
    `${name}: MAE ${(err.reduce((s, e) => s + e, 0) / err.length).toFixed(1)} points, worst ${Math.max(...err).toFixed(1)} (${worst.m}), 90% intervals cover ${cover} of ${rows.length}`,
  );
}
