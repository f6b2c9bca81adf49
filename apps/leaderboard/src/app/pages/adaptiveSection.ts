// The score page's section for an adaptive run (a package's lm-eval/nrm_adaptive.py): how its SE
// fell round by round against the items answered, with the stopping SE marked, and the items it
// asked in order with whether each answer was right. Composes adaptiveRun.ts' view; computes nothing.
import { chart, Plot } from '../charts.js';
import { fmt, h } from '../dom.js';
import { ACCENT, MUTED, WARN } from '../palette.js';
import { runnerAgrees, stopReason, type AdaptivePoint, type AdaptiveRunView } from '../adaptiveRun.js';

function seChart(v: AdaptiveRunView): HTMLElement {
  const target = v.settings.se;
  const last = v.points[v.points.length - 1];
  const maxN = Math.max(v.settings.minItems, last?.answered ?? 1);
  const first = v.points[0];
  const desc = `Standard error of θ after each round of ${v.settings.batch} items, against the items answered${
    first && last ? `: ${fmt(first.se, 3)} after ${first.answered} items, ${fmt(last.se, 3)} after ${last.answered} (ringed, where it stopped)` : ''
  }. The dashed line is the stopping SE ${target}${v.settings.minItems > 0 ? `, the dotted line the minimum of ${v.settings.minItems} items` : ''}.`;
  const title = (p: AdaptivePoint) => `after ${p.answered} items: SE ${fmt(p.se, 3)}, θ ${fmt(p.theta, 3)}`;
  return chart(
    {
      width: 560,
      height: 300,
      marginLeft: 50,
      marginRight: 20,
      marginBottom: 40,
      x: { label: 'Items answered', domain: [0, maxN], grid: true, nice: true },
      y: { label: 'SE of θ', domain: [0, Math.max(target * 1.2, ...v.points.map((p) => p.se))], grid: true, nice: true },
      marks: [
        Plot.ruleY([target], { stroke: WARN, strokeDasharray: '6 4', strokeWidth: 1.5 }),
        ...(v.settings.minItems > 0 ? [Plot.ruleX([v.settings.minItems], { stroke: MUTED, strokeDasharray: '2 3' })] : []),
        Plot.line(v.points, { x: 'answered', y: 'se', stroke: ACCENT, strokeWidth: 2 }),
        Plot.dot(v.points, { x: 'answered', y: 'se', fill: ACCENT, r: 3.5, title }),
        ...(last ? [Plot.dot([last], { x: 'answered', y: 'se', stroke: WARN, fill: 'white', strokeWidth: 2, r: 6, title })] : []),
        // Labels last, with a white halo over the rules they cross: the stopping SE at the left, where the SE is still far above
        // it; the minimum length at the top of its rule, right of the first steep rounds.
        Plot.text([target], {
          y: (d: number) => d,
          x: 0,
          text: () => `stopping SE ${target}`,
          textAnchor: 'start',
          dx: 4,
          dy: -7,
          fill: WARN,
          stroke: 'white',
          fontSize: 11,
        }),
        ...(v.settings.minItems > 0
          ? [
              Plot.text([v.settings.minItems], {
                x: (d: number) => d,
                frameAnchor: 'top',
                text: () => `min. ${v.settings.minItems} items`,
                textAnchor: 'start',
                dx: 4,
                dy: 6,
                fill: MUTED,
                stroke: 'white',
                fontSize: 11,
              }),
            ]
          : []),
      ],
    },
    { title: 'How the SE fell', description: desc },
    'adaptive-se',
  );
}

function itemsTable(v: AdaptiveRunView): HTMLElement {
  const right = v.items.filter((r) => r.right === true).length;
  return h(
    'div',
    null,
    h('p', { class: 'muted' }, `${v.items.length} items asked of the pool's ${v.pool}, in order; ${right} answered right (its most likely option the key).`),
    h(
      'div',
      { class: 'table-wrap scroll' },
      h(
        'table',
        { id: 'adaptive-items' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col', class: 'num' }, '#'),
            h('th', { scope: 'col', class: 'num', title: 'The round (one batched harness call) that asked it' }, 'Round'),
            h('th', { scope: 'col' }, 'Item'),
            h('th', { scope: 'col' }, 'Benchmark'),
            h('th', { scope: 'col' }, 'Answer'),
          ),
        ),
        h(
          'tbody',
          null,
          ...v.items.map((r) =>
            h(
              'tr',
              { 'data-item': r.id, 'data-right': r.right === null ? 'none' : String(r.right) },
              h('td', { class: 'num' }, String(r.order)),
              h('td', { class: 'num' }, String(r.round)),
              h('td', { class: 'model' }, r.id),
              h('td', null, r.benchmark || '–'),
              h('td', { class: r.right === null ? 'muted' : r.right ? 'right' : 'wrong' }, r.right === null ? 'no answer' : r.right ? '✓ right' : '✗ wrong'),
            ),
          ),
        ),
      ),
    ),
  );
}

/**
 * The adaptive run's section: why it stopped, the runner's own estimate beside the page's score of
 * the run (`scored`: the same where the site carries the run's package), the SE chart and the items asked.
 */
export function adaptiveSection(v: AdaptiveRunView, scored: { theta: number; se: number; asPackage: boolean }): HTMLElement {
  const own = `The runner's own estimate (its results file): θ ${fmt(v.theta, 4)}, SE ${fmt(v.se, 4)}`;
  return h(
    'section',
    { id: 'adaptive-run' },
    h('h2', null, 'Adaptive run'),
    h(
      'p',
      null,
      `Each round asked the ${v.settings.batch} items most informative at the run's estimate so far (from ${v.file}). `,
      h('strong', { id: 'adaptive-stop' }, stopReason(v)),
    ),
    h(
      'p',
      { id: 'adaptive-own', class: 'muted' },
      runnerAgrees(v, scored)
        ? `${own}, the θ and SE above.`
        : `${own}; the θ and SE above differ: ${
            scored.asPackage
              ? 'this site scored the run against its package as llm-nrm score <package> does, and the runner disagrees with that'
              : "this site does not carry the package the run asked from, so it scored the run against the full bank (llm-nrm score <package> gives the runner's)"
          }.`,
    ),
    h('div', { class: 'grid2' }, seChart(v), itemsTable(v)),
  );
}
