import { pearson } from './pearson.js';
import { rank } from './rank.js';

/**
 * Spearman's rho with ties: the Pearson correlation of average ranks (`rank`), over pairs where both
 * values are numbers. NaN when fewer than 2 pairs or a variable is constant.
 */
export function spearmanRho(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) throw new RangeError(`length mismatch: ${x.length} vs ${y.length}`);
  const keep: number[] = [];
  for (let i = 0; i < x.length; i++) if (!Number.isNaN(x[i]!) && !Number.isNaN(y[i]!)) keep.push(i);
  const xs = Float64Array.from(keep, (i) => x[i]!);
  const ys = Float64Array.from(keep, (i) => y[i]!);
  return pearson(rank(xs), rank(ys));
}
