import { describe, expect, it } from 'vitest';
import { placeCurveLabels, type LabelFrame, type PlacedLabel } from './labelPlacement.js';

// The item page's chart frame: 900 x 380, margins 30 / 20 / 30 / 50, theta -4..4, p 0..1.02.
const FRAME: LabelFrame = { left: 50, right: 880, top: 30, bottom: 350, x: [-4, 4], y: [0, 1.02], charWidth: 6.6, lineHeight: 12 };
const xs = Array.from({ length: 161 }, (_, t) => -4 + 0.05 * t);

/** NRM option curves p_k(theta) = softmax(a_k theta + c_k). */
function nrm(a: number[], c: number[]): number[][] {
  const out = a.map(() => [] as number[]);
  for (const th of xs) {
    const v = a.map((ak, k) => ak * th + c[k]!);
    const m = Math.max(...v);
    const e = v.map((z) => Math.exp(z - m));
    const s = e.reduce((p, q) => p + q, 0);
    e.forEach((z, k) => out[k]!.push(z / s));
  }
  return out;
}

const overlaps = (p: PlacedLabel, q: PlacedLabel) => p.box.x0 < q.box.x1 && q.box.x0 < p.box.x1 && p.box.y0 < q.box.y1 && q.box.y0 < p.box.y1;

function check(curves: number[][], texts: string[]): PlacedLabel[] {
  const placed = placeCurveLabels(
    xs,
    curves.map((ys, k) => ({ ys, text: texts[k]! })),
    FRAME,
  );
  expect(placed.map((l) => l.k)).toEqual(curves.map((_, k) => k));
  for (const p of placed) {
    // Inside the frame, tied to a point of its own curve, and not crossed by it.
    expect(p.box.x0).toBeGreaterThanOrEqual(FRAME.left);
    expect(p.box.x1).toBeLessThanOrEqual(FRAME.right);
    expect(p.y).toBe(curves[p.k]![xs.indexOf(p.x)]);
    expect(p.crossesOwn).toBe(false);
    for (const q of placed) if (q !== p) expect(overlaps(p, q), `labels ${p.k} and ${q.k} overlap`).toBe(false);
  }
  return placed;
}

describe('placeCurveLabels', () => {
  it('keeps apart the labels of three distractors that start together at the left edge (NAEP history/0)', () => {
    // Key rising from 0.14, three distractors from about 0.30 / 0.28 / 0.28 falling together.
    const curves = nrm([1.2, 0, -0.02, -0.05], [0.8, -0.05, -0.2, -0.3]);
    const texts = ['A ✓ A water trade route t…', 'B <img src=x onerror=al…', 'C Land to use for sugar…', 'D Religious freedom'];
    const placed = check(curves, texts);
    // Each label keeps at least a few pixels from every other curve under it.
    for (const p of placed) expect(p.clearance, `label ${p.k}`).toBeGreaterThanOrEqual(2);
  });

  it('puts a label near its curve peak when nothing is in the way', () => {
    // One distractor peaking at theta = 0 between a falling and a rising option.
    const curves = nrm([-2, 0, 2], [0, 1.5, 0]);
    const placed = check(curves, ['A falls', 'B peaks in the middle', 'C ✓ rises']);
    const mid = placed.find((p) => p.k === 1)!;
    expect(Math.abs(mid.x)).toBeLessThan(1);
  });

  it('places ten labels of a ten-option item without overlaps', () => {
    const a = Array.from({ length: 10 }, (_, k) => -1 + 0.25 * k);
    const c = Array.from({ length: 10 }, (_, k) => 0.1 * ((k * 7) % 5));
    check(
      nrm(a, c),
      a.map((_, k) => `${String.fromCharCode(65 + k)} option text number ${k}…`),
    );
  });
});
