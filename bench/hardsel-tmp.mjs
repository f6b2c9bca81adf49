import { realShapedFleet } from './realShapedFleet.mjs';
import { compression } from '@llm-nrm/analysis';
const items = Number(process.env.ITEMS ?? 1000);
const sd = process.env.ITEM_SD ? Number(process.env.ITEM_SD) : undefined;
const bank = realShapedFleet({ models: 29, options: 10, hard: true, seed: 1, items });
const t0 = performance.now();
const res = compression(bank, { budgets: [10, 41], scoring: 'tiny-run', folds: 5, seed: 1, randomDraws: 5, ...(sd ? { fitOptions: { priors: { itemSd: sd } } } : {}), onProgress: () => {} });
console.log(`itemSd ${sd ?? 'default'}: ${res.points.map((p) => `${p.budget}: ${p.kendall.toFixed(3)} / ${p.kendallRandom.toFixed(3)}`).join(' | ')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
