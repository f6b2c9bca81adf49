import { informationSplit } from '@llm-nrm/analysis';
import { itemCurve, itemLogits } from '@llm-nrm/core';
import { chart, Plot } from '../charts.js';
import { fmt, h, howTo, optionLabel } from '../dom.js';
import { itemShard, leaderboard, manifest } from '../data.js';
import { placeCurveLabels } from '../labelPlacement.js';
import { ACCENT, WARN, optionColor, optionDash } from '../palette.js';
import type { ItemEntry } from '@llm-nrm/site/types';

const FLAG_TEXT: Record<string, string> = {
  'possible-wrong-key': 'Possibly mis-keyed: at high ability (θ = 2) another option, not the key, is the most likely answer.',
  'falling-key': 'Falling key: near θ = 0 the key becomes less likely as ability rises.',
  'low-discrimination': 'Low discrimination: the option slopes barely differ, so the item says little about ability.',
  'dominant-distractor': 'Dominant distractor: one wrong option is the most likely answer over most of the ability range.',
};

/**
 * Information split at theta, by analysis' informationSplit on core's NRM logits (d_k = a_k);
 * binary items: (dP/dtheta)^2 / (P (1 - P)) from core's `itemCurve`, all of it binary.
 */
function infoAt(it: ItemEntry, theta: number): [number, number, number] {
  const K = it.nOptions;
  const v = new Float64Array(K);
  const dv = new Float64Array(K);
  if (itemLogits(it, theta, v, dv)) {
    const out = new Float64Array(3);
    informationSplit(v, dv, K, it.key, out);
    return [out[0]!, out[1]!, out[2]!];
  }
  const p = itemCurve(it, theta, v, dv);
  const P = p[it.key]!;
  const dP = dv[it.key]!;
  const I = P > 0 && P < 1 ? (dP * dP) / (P * (1 - P)) : 0;
  return [I, I, 0];
}

/** Advance of one character of the labels (style.css: 11px sans-serif, weight 600), a little generous. */
const LABEL_CHAR_WIDTH = 7.2;

const short = (t: string, n = 28) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

export async function itemPage(view: HTMLElement, args: string[]): Promise<void> {
  const [bs, ss, id] = args;
  const b = Number(bs);
  const sh = Number(ss);
  const [m, lb, shard] = await Promise.all([manifest(), leaderboard(), itemShard(b, sh)]);
  const it = shard.items.find((x) => x.id === id);
  if (!it) throw new Error(`no item ${JSON.stringify(id)} in benchmark ${shard.benchmark}`);
  const K = it.nOptions;
  const text = (k: number) => it.options?.[k] ?? `option ${optionLabel(k)}`;
  const [lo0, hi0] = m.calibratedRange;
  const lo = Math.min(-4, Math.floor(lo0 - 0.5));
  const hi = Math.max(4, Math.ceil(hi0 + 0.5));
  const grid = Array.from({ length: Math.round((hi - lo) / 0.05) + 1 }, (_, t) => lo + 0.05 * t);

  // Option probabilities p_k(theta) on the grid, once: core's itemCurve (the NRM softmax; binary
  // models: P(key), the rest shared evenly).
  const curves = grid.map((th) => itemCurve(it, th));
  const curveMarks = Array.from({ length: K }, (_, k) => {
    const data = grid.map((th, t) => ({ theta: th, p: curves[t]![k]! }));
    return Plot.line(data, {
      x: 'theta',
      y: 'p',
      stroke: optionColor(k),
      strokeWidth: k === it.key ? 3.5 : 2,
      ...(optionDash(k) ? { strokeDasharray: optionDash(k) } : {}),
    });
  });
  // Each curve labelled on itself where the label covers no other label and stays clear of the
  // other curves, as near its peak as that allows (curves that start together at an edge would
  // overprint there: NAEP history/0).
  const frame = { width: 900, height: 380, marginTop: 30, marginRight: 20, marginBottom: 30, marginLeft: 50 };
  const labelText = Array.from({ length: K }, (_, k) => `${optionLabel(k)}${k === it.key ? ' ✓' : ''} ${short(text(k), 22)}`);
  const labels = placeCurveLabels(
    grid,
    Array.from({ length: K }, (_, k) => ({ ys: curves.map((p) => p[k]!), text: labelText[k]! })),
    {
      left: frame.marginLeft,
      right: frame.width - frame.marginRight,
      top: frame.marginTop,
      bottom: frame.height - frame.marginBottom,
      x: [lo, hi],
      y: [0, 1.02],
      charWidth: LABEL_CHAR_WIDTH,
      lineHeight: 13,
    },
  ).map((l) => ({ ...l, label: labelText[l.k]! }));

  // The calibrated LLMs at their theta, coloured by the option they preferred (from their responses),
  // or, without responses, by the option the curves make most likely at their theta.
  const observed = it.preferred !== null;
  const points = lb.llms
    .map((l, r) => {
      let k: number;
      let y: number;
      if (observed) {
        k = it.preferred![r]!;
        y = it.preferredQ![r]!;
      } else {
        const p = itemCurve(it, l.theta);
        k = p.indexOf(Math.max(...p));
        y = p[k]!;
      }
      return { theta: l.theta, y, k, id: l.id };
    })
    .filter((p) => p.k >= 0);
  const pointMarks = Array.from({ length: K }, (_, k) =>
    Plot.dot(
      points.filter((p) => p.k === k),
      {
        x: 'theta',
        y: 'y',
        fill: optionColor(k),
        stroke: '#fff',
        r: 4.5,
        symbol: k === it.key ? 'circle' : 'diamond',
        title: (p: { id: string; theta: number; y: number }) => `${p.id}: θ ${fmt(p.theta)}, preferred ${optionLabel(k)} (${fmt(p.y)})`,
      },
    ),
  );
  const curveDesc = `Probability of each of the ${K} options against ability θ. ${Array.from({ length: K }, (_, k) => `${optionLabel(k)}${k === it.key ? ' (key)' : ''} goes from ${fmt(itemCurve(it, lo)[k])} at θ = ${lo} to ${fmt(itemCurve(it, hi)[k])} at θ = ${hi}`).join('; ')}. Dots: ${points.length} calibrated models at their θ, ${observed ? 'at the probability they gave the option they preferred' : 'at the most likely option there'}.`;

  const info = grid.map((th) => {
    const [total, binary, wrong] = infoAt(it, th);
    return { theta: th, total, binary, wrong };
  });
  const peak = info.reduce((a, x) => (x.total > a.total ? x : a), info[0]!);
  const infoData = info.flatMap((d) => [
    { theta: d.theta, part: 'binary (right/wrong)', v: d.binary },
    { theta: d.theta, part: 'distractor choice', v: d.wrong },
  ]);

  view.append(
    h('p', null, h('a', { href: `#/benchmark/${b}` }, `← ${shard.benchmark}`)),
    h('h1', null, it.id),
    h(
      'p',
      { class: 'lede' },
      `${K} options, key ${optionLabel(it.key)}; difficulty ${fmt(it.difficulty)} on the θ scale; information over the N(0, 1) fleet ${fmt(it.information.total, 3)} (${fmt((100 * it.information.wrong) / (it.information.total || 1), 0)}% from the distractors).`,
    ),
    howTo(
      'Each curve is the probability that a model of ability θ picks that option (the option characteristic curve). The key, marked ✓ and drawn thicker, should rise with θ; a wrong option whose curve peaks in the middle is an informative distractor: the answers it attracts tell apart models of middling ability.',
      `The dots are the calibrated models at their θ, coloured by the option they ${observed ? 'put most probability on, at the height of that probability' : 'are most likely to pick'}. Circles preferred the key.`,
      'The information chart shows where on the scale the item measures: the binary part is what right/wrong carries, the distractor part is what the choice among wrong options adds.',
    ),
    h(
      'ul',
      { class: 'options', 'aria-label': 'Options' },
      ...Array.from({ length: K }, (_, k) =>
        h(
          'li',
          { class: k === it.key ? 'key' : null },
          h('span', { class: `sw c${k % 8}`, 'aria-hidden': 'true' }),
          h('span', { class: 'lab' }, optionLabel(k)),
          h('span', { class: 'txt' }, text(k)),
          k === it.key ? h('span', { class: 'tag key' }, 'key') : null,
          it.informative.includes(k) ? h('span', { class: 'tag' }, 'informative distractor') : null,
        ),
      ),
    ),
    chart(
      {
        ...frame,
        x: { label: 'Ability θ', domain: [lo, hi] },
        y: { label: 'Probability of the option', domain: [0, 1.02], grid: true },
        // A label set off its curve is joined to its point by a leader; Plot's textAnchor is one value
        // per mark, so one text mark per anchor in use.
        marks: [
          ...curveMarks,
          ...pointMarks,
          Plot.ruleX(
            labels.filter((l) => l.leaderTo !== null),
            { x: 'x', y1: 'y', y2: 'leaderTo', stroke: (d: { k: number }) => optionColor(d.k), strokeWidth: 1 },
          ),
          ...(['start', 'middle', 'end'] as const).map((anchor) =>
            Plot.text(
              labels.filter((l) => l.anchor === anchor),
              {
                x: 'x',
                y: 'textY',
                text: 'label',
                textAnchor: anchor,
                fill: (d: { k: number }) => optionColor(d.k),
                fontWeight: 600,
                stroke: 'white',
                strokeWidth: 3,
                paintOrder: 'stroke',
              },
            ),
          ),
        ],
      },
      { title: 'Option characteristic curves', description: curveDesc },
      'occ',
    ),
    chart(
      {
        width: 900,
        height: 240,
        marginLeft: 50,
        x: { label: 'Ability θ', domain: [lo, hi] },
        y: { label: 'Fisher information', grid: true },
        color: { domain: ['binary (right/wrong)', 'distractor choice'], range: [ACCENT, WARN] },
        marks: [Plot.areaY(infoData, { x: 'theta', y: 'v', fill: 'part', fillOpacity: 0.75 }), Plot.ruleY([0])],
      },
      {
        title: 'Information split',
        description: `Fisher information of this item against θ, stacked: the binary part (right or wrong) and what the choice of distractor adds. It peaks at θ = ${fmt(peak.theta)} with ${fmt(peak.total, 3)} (${fmt(peak.binary, 3)} binary, ${fmt(peak.wrong, 3)} distractor).`,
      },
    ),
    h(
      'div',
      { class: 'legend' },
      h('span', null, h('span', { class: 'sw', 'data-c': 'accent' }), 'binary part'),
      h('span', null, h('span', { class: 'sw', 'data-c': 'warn' }), 'distractor part'),
    ),
    h('h2', null, 'Quality'),
    it.flags.length === 0
      ? h(
          'p',
          null,
          'No quality flag: the key is the most likely answer at high ability and rises with it, the options discriminate, and no distractor dominates.',
        )
      : h('ul', { class: 'flags' }, ...it.flags.map((f) => h('li', null, h('strong', null, f), ': ', FLAG_TEXT[f] ?? ''))),
    ...(it.quality && it.flags.includes('possible-wrong-key')
      ? [h('p', null, `At θ = 2 the most likely option is ${optionLabel(it.quality.topAtHigh)}: “${text(it.quality.topAtHigh)}”.`)]
      : []),
    // The key audit's verdict (analysis keyAudit, `llm-nrm audit`); older site data have no field.
    ...(it.keyAudit
      ? [
          h(
            'p',
            { class: 'key-audit' },
            h('strong', null, 'Key audit'),
            `: at θ = ${fmt(it.keyAudit.highTheta)} the fleet's curves favour ${optionLabel(it.keyAudit.implied)} (“${text(it.keyAudit.implied)}”) over the key by ${fmt(it.keyAudit.margin)} logits (confidence ${fmt(it.keyAudit.confidence, 3)}): the key may be wrong.`,
          ),
        ]
      : []),
    h(
      'p',
      { class: 'muted' },
      it.informative.length > 0
        ? `Informative distractors (the most likely answer somewhere on −4 ≤ θ ≤ 4): ${it.informative.map((k) => optionLabel(k)).join(', ')}.`
        : 'No informative distractor: the key or nothing is the most likely answer everywhere on −4 ≤ θ ≤ 4.',
    ),
  );
}
