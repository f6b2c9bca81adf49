// Where to write each curve's label on a line chart so that labels overprint neither each other
// nor the curves. Pure (no DOM): the item page feeds it the option curves and the chart's frame.

/** The chart's plotting frame in pixels and its linear scales' domains. */
export interface LabelFrame {
  /** Left and right edges of the plotting area (px). */
  left: number;
  right: number;
  /** Top and bottom edges of the plotting area (px). */
  top: number;
  bottom: number;
  /** Data domains mapped onto [left, right] and [bottom, top]. */
  x: readonly [number, number];
  y: readonly [number, number];
  /** Estimated advance of one character (px) and the line height (px) of the label font. */
  charWidth: number;
  lineHeight: number;
}

/** One curve to label: y values on the shared x grid (increasing), and its label text. */
export interface LabelCurve {
  ys: readonly number[];
  text: string;
}

/** A placed label, tied to a point of its curve. */
export interface PlacedLabel {
  /** Index of the curve. */
  k: number;
  /** The point of the curve it labels (data units). */
  x: number;
  y: number;
  /** Vertical centre of the text (data units): just above or below the point, or further off with a leader. */
  textY: number;
  /** Which end of the text sits at x (SVG text-anchor). */
  anchor: 'start' | 'middle' | 'end';
  /** Where a leader from the point ends (data units, the box edge facing the point); null: no leader (the text sits at the point). */
  leaderTo: number | null;
  /** Its box in pixels. */
  box: { x0: number; x1: number; y0: number; y1: number };
  /** Smallest vertical distance from the box to any other curve over the box's width (px). */
  clearance: number;
  /** Whether its own curve passes through the box. */
  crossesOwn: boolean;
}

const ANCHORS = ['middle', 'start', 'end'] as const;
/** Gap between a label box and its own curve at the point (px). */
const GAP = 3;
/** Offsets tried beyond the first, in lines: a label that cannot sit at its curve floats off it with a leader. */
const FAR_LINES = [1, 2, 3, 4];
/** Distance (px) from the other curves at which a curve point counts as told apart from them. */
const APART = 8;
/** Clearance beyond which a place counts as free: past it only the closeness to the peak and the offset matter. */
const ENOUGH = 14;

/**
 * Greedy placement: the curves with the highest peaks choose first; each label starts, is centred
 * or ends at a point of its own curve, just above or just below it (or a few lines further off,
 * then joined to the point by a leader), at the candidate place that overlaps no label already
 * placed, is not crossed by its own curve, and keeps the most distance (up to ENOUGH px) from the
 * other curves over the label's width; among such places the one nearest the curve's peak, at a
 * point where its curve runs apart from the others, and nearest the curve wins (at the peak the
 * option is the likeliest, where a reader looks).
 * Deterministic: ties go to the first candidate (leftmost, centred, above, nearest).
 */
export function placeCurveLabels(xs: readonly number[], curves: readonly LabelCurve[], frame: LabelFrame): PlacedLabel[] {
  const { left, right, top, bottom } = frame;
  const sx = (v: number) => left + ((v - frame.x[0]) / (frame.x[1] - frame.x[0])) * (right - left);
  const sy = (v: number) => bottom - ((v - frame.y[0]) / (frame.y[1] - frame.y[0])) * (bottom - top);
  const iy = (p: number) => frame.y[0] + ((bottom - p) / (bottom - top)) * (frame.y[1] - frame.y[0]);
  const px = xs.map(sx);
  const py = curves.map((c) => c.ys.map(sy));
  const peak = curves.map((c) => c.ys.reduce((a, v) => Math.max(a, v), -Infinity));
  const order = curves.map((_, k) => k).sort((a, b) => peak[b]! - peak[a]! || a - b);
  const h = frame.lineHeight;
  const near = GAP + h / 2;
  const offsets = [-near, near, ...FAR_LINES.flatMap((n) => [-(near + n * h), near + n * h])];
  const placed: PlacedLabel[] = [];
  const candidate = (k: number, t: number, anchor: PlacedLabel['anchor'], dy: number): PlacedLabel => {
    const w = curves[k]!.text.length * frame.charWidth;
    const cx = px[t]!;
    const x0 = anchor === 'start' ? cx : anchor === 'end' ? cx - w : cx - w / 2;
    const cy = py[k]![t]! + dy;
    const box = { x0, x1: x0 + w, y0: cy - h / 2, y1: cy + h / 2 };
    let clearance = Infinity;
    let crossesOwn = false;
    for (let u = firstAtOrAfter(px, box.x0); u < xs.length && px[u]! <= box.x1; u++) {
      for (let j = 0; j < curves.length; j++) {
        const yj = py[j]![u]!;
        const d = yj < box.y0 ? box.y0 - yj : yj > box.y1 ? yj - box.y1 : 0;
        if (j === k) crossesOwn ||= d === 0;
        else if (d < clearance) clearance = d;
      }
    }
    const leaderTo = Math.abs(dy) > near ? iy(dy < 0 ? box.y1 : box.y0) : null;
    return { k, x: xs[t]!, y: curves[k]!.ys[t]!, textY: iy(cy), anchor, leaderTo, box, clearance, crossesOwn };
  };
  for (const k of order) {
    let best: { score: number; label: PlacedLabel } | null = null;
    let fallback: { overlap: number; label: PlacedLabel } | null = null;
    for (let t = 0; t < xs.length; t++) {
      for (const anchor of ANCHORS) {
        for (const dy of offsets) {
          const label = candidate(k, t, anchor, dy);
          const { box } = label;
          // Inside the plotting area; up to a line into the top margin (the title sits higher).
          if (box.x0 < left || box.x1 > right || box.y0 < top - h || box.y1 > bottom) continue;
          let overlap = 0;
          for (const p of placed) {
            const ox = Math.min(box.x1, p.box.x1 + 2) - Math.max(box.x0, p.box.x0 - 2);
            const oy = Math.min(box.y1, p.box.y1 + 1) - Math.max(box.y0, p.box.y0 - 1);
            if (ox > 0 && oy > 0) overlap += ox * oy;
          }
          if (overlap > 0) {
            if (fallback === null || overlap < fallback.overlap) fallback = { overlap, label };
            continue;
          }
          const nearPeak = peak[k]! > frame.y[0] ? (label.y - frame.y[0]) / (peak[k]! - frame.y[0]) : 1;
          // Where its curve runs apart from the others, a label (or its leader) says which curve it names.
          let apart = Infinity;
          for (let j = 0; j < curves.length; j++) if (j !== k) apart = Math.min(apart, Math.abs(py[j]![t]! - py[k]![t]!));
          const score =
            Math.min(label.clearance, ENOUGH) +
            4 * nearPeak +
            (4 * Math.min(apart, APART)) / APART -
            (label.crossesOwn ? ENOUGH : 0) -
            3 * ((Math.abs(dy) - near) / h);
          if (best === null || score > best.score) best = { score, label };
        }
      }
    }
    // No place inside the frame (a label wider than the plot): at the peak, above, whatever it covers.
    const chosen = best?.label ?? fallback?.label ?? candidate(k, curves[k]!.ys.indexOf(peak[k]!), 'middle', -near);
    placed.push(chosen);
  }
  return placed.sort((a, b) => a.k - b.k);
}

/** First index of increasing `v` with v[i] >= x (v.length if none). */
function firstAtOrAfter(v: readonly number[], x: number): number {
  let lo = 0;
  let hi = v.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
