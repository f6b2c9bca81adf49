import { printable } from '@llm-nrm/core';
import { download, fmt, h, howTo, pct, replace, s } from '../dom.js';
import { leaderboard, manifest } from '../data.js';
import { board, ownBias, ownSharpness, type BoardRow } from '../state.js';
import type { Manifest } from '@llm-nrm/site/types';
import { fallbackUnused } from '../fallbackUnused.js';

type SortKey = 'theta' | 'id' | 'accuracy' | 'sharpness' | 'fallbackStrength' | 'se';

const COLUMNS: { key: SortKey | null; label: string; num?: boolean; title?: string }[] = [
  { key: null, label: 'Rank', num: true, title: 'Rank by theta, and its 90% Monte Carlo interval (from the SEs of differences between models)' },
  { key: null, label: 'Tie group', num: true, title: 'Models in one group are not separated at 90% (difference within 1.645 SE of the difference)' },
  { key: 'id', label: 'Model' },
  { key: 'theta', label: 'θ (95% interval)', num: true, title: 'Ability on the calibrated scale' },
  { key: null, label: 'Interval', title: 'The 95% interval of theta on a common scale' },
  { key: 'accuracy', label: 'Accuracy', num: true },
  { key: 'sharpness', label: 'Sharpness', num: true, title: 'How peaked its option distributions are (1 = average)' },
  { key: 'fallbackStrength', label: 'Fallback', num: true, title: 'Range of the fallback pattern over displayed positions (logits)' },
  { key: null, label: 'Position bias', title: 'Bias toward each displayed position (A, B, ...), in logits' },
];

/** A small bar chart of the position biases (blue above zero, vermillion below). */
export function sparkline(values: number[], label: string): SVGElement {
  const w = 14 * Math.max(values.length, 1);
  const H = 26;
  const m = Math.max(0.05, ...values.map((v) => Math.abs(v)));
  const bars = values.map((v, k) => {
    const y = (H / 2) * (1 - v / m);
    return s('rect', { class: v >= 0 ? 'pos' : 'neg', x: 14 * k + 2, width: 10, y: Math.min(y, H / 2), height: Math.max(1, Math.abs(H / 2 - y)) });
  });
  return s(
    'svg',
    { class: 'spark', width: w, height: H, viewBox: `0 0 ${w} ${H}`, role: 'img', 'aria-label': label },
    s('title', null, label),
    s('line', { x1: 0, x2: w, y1: H / 2, y2: H / 2 }),
    ...bars,
  );
}

/** Why an added tiny run's row shows no position bias or fallback. */
const NOT_FITTED =
  "not fitted: scored from a tiny run's few items, its position bias and fallback are the calibrated fleet's prior means, not this model's (llm-nrm score does the same)";

/** The accuracy cell: a tiny run's predicted full-bank accuracy is marked as predicted, with its 90% interval. */
function accuracyCell(r: BoardRow, acc: number | null, benchmark: string): HTMLElement {
  const p = r.predicted?.[benchmark];
  if (r.predicted === undefined) return h('td', { class: 'num' }, pct(acc));
  if (p === undefined) return h('td', { class: 'num muted' }, '–');
  const label = `predicted full-bank accuracy ${pct(p.accuracy)}, 90% interval ${pct(p.low)} to ${pct(p.high)} (from a tiny run: its share right on the package's items is not shown)`;
  return h(
    'td',
    { class: 'num predicted', title: label },
    pct(p.accuracy),
    h('span', { class: 'muted' }, ` [${(100 * p.low).toFixed(1)}, ${(100 * p.high).toFixed(1)}]`),
    h('span', { class: 'tag' }, 'predicted'),
  );
}

function intervalBar(r: BoardRow, lo: number, hi: number): SVGElement {
  const W = 130;
  const H = 18;
  const x = (v: number) => 4 + ((v - lo) / (hi - lo)) * (W - 8);
  const parts: SVGElement[] = [];
  if (lo < 0 && hi > 0) parts.push(s('line', { class: 'axis0', x1: x(0), x2: x(0), y1: 0, y2: H }));
  if (r.lo !== null && r.hi !== null) parts.push(s('line', { class: 'ci', x1: x(r.lo), x2: x(r.hi), y1: H / 2, y2: H / 2 }));
  parts.push(s('circle', { class: 'pt', cx: x(r.theta), cy: H / 2, r: 3.5 }));
  const label = `theta ${fmt(r.theta)}, 95% interval ${fmt(r.lo)} to ${fmt(r.hi)}`;
  return s('svg', { class: 'interval', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label }, s('title', null, label), ...parts);
}

function rowsCsv(rows: BoardRow[], m: Manifest): string {
  const q = (v: string) => (/[",\n\r]/.test(v) || /^[=+\-@\t]/.test(v) ? `"${(/^[=+\-@\t]/.test(v) ? `'${v}` : v).replace(/"/g, '""')}"` : v);
  const k = m.kMax;
  const head = [
    'rank',
    'rank_lo',
    'rank_hi',
    'tie_group',
    'model',
    'theta',
    'se',
    'theta_lo95',
    'theta_hi95',
    'accuracy',
    'accuracy_predicted',
    'sharpness',
    'fallback_strength',
    'fallback_use',
    ...Array.from({ length: k }, (_, t) => `position_bias_${t + 1}`),
    'added',
    'outside_calibrated_range',
  ];
  const lines = [head.join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.rank,
        r.rankLo,
        r.rankHi,
        r.group,
        q(r.id),
        r.theta,
        r.se ?? '',
        r.lo ?? '',
        r.hi ?? '',
        r.accuracy ?? '',
        // A tiny run's accuracy is its predicted full-bank accuracy; nuisances it did not fit are left blank, not the fleet's means.
        r.predicted !== undefined,
        ownSharpness(r) ? r.sharpness : '',
        ownBias(r) ? r.fallbackStrength : '',
        r.fallbackUse ?? '',
        ...Array.from({ length: k }, (_, t) => (ownBias(r) ? (r.positionBias[t] ?? '') : '')),
        r.added,
        r.outOfRange,
      ].join(','),
    );
  }
  return lines.join('\n') + '\n';
}

export async function leaderboardPage(view: HTMLElement): Promise<void> {
  const [m, lb] = await Promise.all([manifest(), leaderboard()]);
  const rows = board(lb.llms, m);
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  let sortKey: SortKey = 'theta';
  let desc = true;
  let query = params.get('q') ?? '';
  let bench = -1;
  const lo = Math.min(...rows.map((r) => r.lo ?? r.theta));
  const hi = Math.max(...rows.map((r) => r.hi ?? r.theta));
  const pad = 0.05 * (hi - lo || 1);

  const tbody = h('tbody');
  const count = h('p', { class: 'muted', 'aria-live': 'polite' });
  const headCells = COLUMNS.map((c) => {
    const th = h('th', { scope: 'col', class: c.num ? 'num' : null, title: c.title ?? null });
    if (c.key) {
      const key = c.key;
      th.appendChild(
        h(
          'button',
          {
            type: 'button',
            onclick: () => {
              if (sortKey === key) desc = !desc;
              else {
                sortKey = key;
                desc = key !== 'id';
              }
              render();
            },
          },
          c.label,
        ),
      );
    } else th.textContent = c.label;
    return th;
  });
  const accHead = headCells[5]!;

  const visible = (): BoardRow[] => {
    const ql = query.trim().toLowerCase();
    let out = rows.filter((r) => ql === '' || r.id.toLowerCase().includes(ql));
    if (bench >= 0) out = out.filter((r) => r.added || (r.benchmarks?.[bench] ?? null) !== null);
    const acc = (r: BoardRow) => (bench >= 0 ? (r.benchmarks?.[bench] ?? null) : r.accuracy) ?? -Infinity;
    const val = (r: BoardRow): number | string =>
      sortKey === 'id'
        ? r.id.toLowerCase()
        : sortKey === 'accuracy'
          ? acc(r)
          : sortKey === 'se'
            ? (r.se ?? Infinity)
            : sortKey === 'fallbackStrength' && fallbackUnused(r.fallbackUse)
              ? -Infinity
              : r[sortKey];
    out.sort((a, b) => {
      const x = val(a);
      const y = val(b);
      const c = x < y ? -1 : x > y ? 1 : a.theta === b.theta ? 0 : b.theta - a.theta;
      return desc ? -c : c;
    });
    return out;
  };

  function render(): void {
    COLUMNS.forEach((c, t) => {
      if (c.key) headCells[t]!.setAttribute('aria-sort', c.key === sortKey ? (desc ? 'descending' : 'ascending') : 'none');
    });
    accHead.querySelector('button')!.textContent = bench >= 0 ? `Accuracy (${m.benchmarks[bench]!.name})` : 'Accuracy';
    const list = visible();
    count.textContent = printable(`${list.length} of ${rows.length} models${query ? ` matching “${query}”` : ''}.`);
    replace(
      tbody,
      list.map((r) => {
        const link = r.added ? h('span', { class: 'name' }, r.id) : h('a', { class: 'name', href: `#/model/${r.index}` }, r.id);
        const acc = bench >= 0 ? (r.benchmarks?.[bench] ?? null) : r.accuracy;
        return h(
          'tr',
          { class: r.added ? 'mine' : null, 'data-model': r.id, 'data-theta': String(r.theta) },
          h('td', { class: 'num' }, String(r.rank), h('span', { class: 'muted' }, r.rankLo === r.rankHi ? '' : ` (${r.rankLo}–${r.rankHi})`)),
          h('td', { class: 'num' }, h('span', { class: 'group' }, String(r.group))),
          h(
            'td',
            { class: 'model', title: r.id },
            link,
            r.added ? h('span', { class: 'tag mine' }, 'yours') : null,
            r.outOfRange
              ? h('span', { class: 'tag warn', title: "theta is outside the calibrated models' range: an extrapolation" }, 'outside calibrated range')
              : null,
            r.warnings.length > 0
              ? h(
                  'span',
                  {
                    class: 'tag warn',
                    title: m.warnings
                      .filter((w) => r.warnings.includes(w.code))
                      .map((w) => w.message)
                      .join(' '),
                  },
                  'see warning',
                )
              : null,
          ),
          h('td', { class: 'num' }, fmt(r.theta), h('span', { class: 'muted' }, r.lo === null ? '' : ` [${fmt(r.lo)}, ${fmt(r.hi)}]`)),
          h('td', null, intervalBar(r, lo - pad, hi + pad)),
          accuracyCell(r, acc, bench >= 0 ? m.benchmarks[bench]!.name : 'overall'),
          ownSharpness(r)
            ? h('td', { class: 'num' }, fmt(r.sharpness))
            : h('td', { class: 'num muted', title: "not fitted from so few items: the calibrated fleet's mean was used" }, '–'),
          !ownBias(r)
            ? h('td', { class: 'num muted', title: NOT_FITTED }, '–')
            : fallbackUnused(r.fallbackUse)
              ? h(
                  'td',
                  {
                    class: 'num muted',
                    title: `fallback gate shut on its items (mean gate ${r.fallbackUse! < 1e-4 ? 'below 0.01%' : pct(r.fallbackUse!, 2)}): the pattern is the prior's, not the data's`,
                  },
                  'unused',
                )
              : h('td', { class: 'num' }, fmt(r.fallbackStrength)),
          h(
            'td',
            ownBias(r) ? null : { class: 'muted', title: NOT_FITTED },
            ownBias(r) && r.positionBias.length > 0
              ? sparkline(r.positionBias, `position bias of ${r.id}: ${r.positionBias.map((v, k) => `${String.fromCharCode(65 + k)} ${fmt(v)}`).join(', ')}`)
              : '–',
          ),
        );
      }),
    );
  }

  const search = h('input', { type: 'search', placeholder: 'model name', value: query, 'aria-label': 'Search models' });
  search.addEventListener('input', () => {
    query = search.value;
    render();
  });
  const select = h(
    'select',
    { 'aria-label': 'Benchmark' },
    h('option', { value: '-1' }, 'All benchmarks'),
    ...m.benchmarks.map((b) => h('option', { value: String(b.id) }, `${b.name} (${b.items} items)`)),
  );
  select.disabled = !m.hasResponses;
  select.addEventListener('change', () => {
    bench = Number(select.value);
    render();
  });
  const stamp = m.provenance.createdAt.slice(0, 10);
  const csvBtn = h(
    'button',
    { type: 'button', onclick: () => download(`llm-nrm-leaderboard-${stamp}.csv`, 'text/csv', rowsCsv(visible(), m)) },
    'Download CSV',
  );
  const jsonBtn = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        download(
          `llm-nrm-leaderboard-${stamp}.json`,
          'application/json',
          JSON.stringify({ model: m.model, items: m.items, createdAt: m.provenance.createdAt, llms: visible() }, null, 2),
        ),
    },
    'Download JSON',
  );

  const nGroups = new Set(rows.map((r) => r.group)).size;
  // An unconverged calibration is said before anything it estimated (the manifest puts it first).
  const unconverged = m.warnings.filter((w) => w.code === 'UNCONVERGED');
  view.append(
    h('h1', null, 'Leaderboard'),
    ...unconverged.map((w) => h('div', { class: 'error-box', role: 'alert' }, h('strong', null, 'Calibration did not converge. '), w.message)),
    h(
      'p',
      { class: 'lede' },
      `${rows.length} models on ${m.items.toLocaleString('en')} items (${m.benchmarks.length} benchmark${m.benchmarks.length === 1 ? '' : 's'}), calibrated with ${m.model.toUpperCase()}. ${nGroups} tie groups at 90%.`,
    ),
    howTo(
      "θ is each model's ability on the scale the items were calibrated on (0 is the fleet's average, 1 is one fleet standard deviation). The bar is its 95% interval, θ ± 1.96 standard errors; two models whose intervals overlap a lot are not reliably ordered.",
      `The rank interval in brackets is the range of ranks it takes in 90% of ${m.rankDraws.toLocaleString('en')} random redraws of every θ within its standard error (so each difference between two models carries both their SEs). Models in one tie group are not separated from the group's top model at 90%.`,
      'Accuracy is the share of items whose most likely option was the key. Sharpness says how peaked its option distributions are (above 1: more confident than the average model). Fallback is how strongly its guesses lean to one displayed position when an item is too hard, and the sparkline shows its bias toward each displayed position (A, B, C...): blue bars above the line favour that position, vermillion bars below avoid it.',
      'A model you score on the “Score your model” page appears here in yellow, marked “yours”; a flag says when its θ lies outside the range of the calibrated models. A run of the tiny package shows its predicted full-bank accuracy (marked “predicted”, with its 90% interval) and no position bias or fallback: from so few items those are not its own.',
    ),
    ...(m.warnings.length > unconverged.length
      ? [
          h(
            'div',
            { class: 'error-box', role: 'note' },
            h('strong', null, 'What this data cannot support'),
            h('ul', null, ...m.warnings.filter((w) => w.code !== 'UNCONVERGED').map((w) => h('li', null, w.message))),
          ),
        ]
      : []),
    h('div', { class: 'controls' }, h('label', null, 'Search', search), h('label', null, 'Benchmark', select), csvBtn, jsonBtn),
    count,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'board' },
        h('caption', { class: 'muted' }, 'Models by θ, highest first; click a column title to sort'),
        h('thead', null, h('tr', null, ...headCells)),
        tbody,
      ),
    ),
  );
  render();
}
