import { chart, Plot } from '../charts.js';
import { fmt, h, howTo, optionLabel, pct } from '../dom.js';
import { leaderboard, manifest, modelShard } from '../data.js';
import { ACCENT, WARN } from '../palette.js';
import { board } from '../state.js';
import { fallbackUnused } from '../fallbackUnused.js';

function card(k: string, v: string, sub?: string): HTMLElement {
  return h('div', { class: 'card' }, h('div', { class: 'k' }, k), h('div', { class: 'v' }, v), sub ? h('div', { class: 'k' }, sub) : null);
}

/** Per-position estimates with 95% intervals (when the SEs are known). */
function positionChart(values: number[], se: number[] | null, title: string, what: string): HTMLElement {
  const data = values.map((v, k) => ({ pos: optionLabel(k), v, lo: se ? v - 1.96 * se[k]! : v, hi: se ? v + 1.96 * se[k]! : v }));
  const desc = `${what} per displayed position, in logits${se ? ', with 95% intervals' : ' (no intervals: the site was built without responses)'}: ${data.map((d) => `${d.pos} ${fmt(d.v)}${se ? ` [${fmt(d.lo)}, ${fmt(d.hi)}]` : ''}`).join('; ')}.`;
  return chart(
    {
      width: 440,
      height: 230,
      marginLeft: 50,
      x: { label: 'Displayed position', domain: data.map((d) => d.pos) },
      y: { label: `${what} (logits)`, grid: true, nice: true },
      marks: [
        Plot.ruleY([0], { stroke: '#9aa3ad' }),
        Plot.ruleX(data, { x: 'pos', y1: 'lo', y2: 'hi', stroke: ACCENT, strokeWidth: 2 }),
        Plot.dot(data, {
          x: 'pos',
          y: 'v',
          fill: ACCENT,
          r: 4,
          title: (d: { pos: string; v: number; lo: number; hi: number }) => `${d.pos}: ${fmt(d.v)} [${fmt(d.lo)}, ${fmt(d.hi)}]`,
        }),
      ],
    },
    { title, description: desc },
  );
}

export async function modelPage(view: HTMLElement, args: string[]): Promise<void> {
  const index = Number(args[0]);
  const [m, lb] = await Promise.all([manifest(), leaderboard()]);
  const base = lb.llms[index];
  if (!Number.isInteger(index) || base === undefined) throw new Error(`no model number ${args[0] ?? ''} on this board`);
  const shard = await modelShard(index);
  const row = board(lb.llms, m).find((r) => !r.added && r.index === index)!;

  view.append(
    h('p', null, h('a', { href: '#/' }, '← Leaderboard')),
    h('h1', null, row.id),
    h(
      'p',
      { class: 'lede' },
      `Rank ${row.rank} of ${lb.llms.length}${row.rankLo !== row.rankHi ? ` (90% rank interval ${row.rankLo}–${row.rankHi})` : ''}, tie group ${row.group}.`,
    ),
    howTo(
      'θ is the ability on the calibrated scale with its 95% interval. Position bias is the extra logit the model gives an option for where it is shown (A, B, ...), whatever its content; fallback is the pattern it falls back on when an item is beyond it (a model that guesses "A" when lost has a high fallback at A). Both sum to zero over positions; an interval that crosses zero is no evidence of a lean.',
      "Information is how much the items of each benchmark tell about θ at this model's θ (Fisher information, the NRM part): the binary part is what right/wrong alone carries, the distractor part what the choice among wrong options adds. 1/√(total) is the standard error those items alone would give.",
      'The separating items are where this model and its neighbours on the board differ most: the probability each put on the keyed option.',
    ),
    h(
      'div',
      { class: 'cards' },
      card('θ (95% interval)', fmt(row.theta, 3), row.lo !== null ? `[${fmt(row.lo, 3)}, ${fmt(row.hi, 3)}]` : 'no SE'),
      card('Accuracy', pct(row.accuracy), row.cells !== null ? `${row.cells.toLocaleString('en')} presentations` : undefined),
      card('Sharpness', fmt(row.sharpness), '1 = average confidence'),
      card(
        'Fallback strength',
        fallbackUnused(shard.fallbackUse) ? 'unused' : fmt(row.fallbackStrength),
        fallbackUnused(shard.fallbackUse) ? 'gate shut on its items' : 'range of ρ over positions',
      ),
    ),
  );

  const charts = h('div', { class: 'grid2' });
  if (row.positionBias.length > 0) {
    charts.append(
      positionChart(row.positionBias, shard.paramSe?.positionBias ?? null, 'Positional bias', 'Bias δ'),
      fallbackUnused(shard.fallbackUse)
        ? h(
            'figure',
            { class: 'chart', id: 'fallback-unused' },
            h(
              'figcaption',
              null,
              h('strong', null, 'Fallback pattern: unused'),
              ' ',
              h(
                'span',
                { class: 'muted' },
                `Its fallback gate is shut on the items it answered (mean gate ${shard.fallbackUse! < 1e-4 ? 'below 0.01%' : pct(shard.fallbackUse!, 2)}): the model fits its choices without falling back on a guessing pattern, so the data say nothing about that pattern. Its estimate (range ${fmt(row.fallbackStrength)}) and intervals would be the prior's alone and are not drawn.`,
              ),
            ),
          )
        : positionChart(row.fallback, shard.paramSe?.fallback ?? null, 'Fallback pattern', 'Fallback ρ'),
    );
  }
  view.append(
    h('h2', null, 'Position effects'),
    charts.childElementCount > 0 ? charts : h('p', { class: 'muted' }, `The ${m.model} model has no position effects.`),
  );

  // Information per benchmark at its theta, stacked binary + distractor.
  const info = shard.information.flatMap((b) => [
    { benchmark: b.benchmark, part: 'binary (right/wrong)', v: b.binary },
    { benchmark: b.benchmark, part: 'distractor choice', v: b.wrong },
  ]);
  const infoDesc = `Fisher information at θ = ${fmt(row.theta)} per benchmark: ${shard.information.map((b) => `${b.benchmark} ${fmt(b.total)} (binary ${fmt(b.binary)}, distractors ${fmt(b.wrong)}, ${b.items} items)`).join('; ')}.`;
  view.append(
    h('h2', null, 'What its items tell at its θ'),
    chart(
      {
        width: 900,
        height: Math.max(120, 34 * shard.information.length + 60),
        marginLeft: 160,
        x: { label: 'Fisher information about θ (1 / SE²)', grid: true },
        y: { label: null },
        color: { domain: ['binary (right/wrong)', 'distractor choice'], range: [ACCENT, WARN] },
        marks: [
          Plot.barX(info, { y: 'benchmark', x: 'v', fill: 'part', title: (d: { part: string; v: number }) => `${d.part}: ${fmt(d.v)}` }),
          Plot.ruleX([0]),
        ],
      },
      { title: 'Information by benchmark', description: infoDesc },
    ),
    h(
      'div',
      { class: 'legend' },
      h('span', null, h('span', { class: 'sw', 'data-c': 'accent' }), 'binary part (right/wrong)'),
      h('span', null, h('span', { class: 'sw', 'data-c': 'warn' }), 'distractor part (which wrong option)'),
    ),
  );

  if (shard.accuracy) {
    view.append(
      h('h2', null, 'Accuracy per benchmark'),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          null,
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, 'Benchmark'),
              h('th', { scope: 'col', class: 'num' }, 'Accuracy'),
              h('th', { scope: 'col', class: 'num' }, 'Presentations'),
            ),
          ),
          h(
            'tbody',
            null,
            ...shard.accuracy.map((a) =>
              h('tr', null, h('td', null, a.benchmark), h('td', { class: 'num' }, pct(a.accuracy)), h('td', { class: 'num' }, a.cells.toLocaleString('en'))),
            ),
          ),
        ),
      ),
    );
  }

  view.append(h('h2', null, 'Items that separate it from its neighbours'));
  if (shard.neighbours.length === 0) view.append(h('p', { class: 'muted' }, 'No neighbours: it is alone on the board.'));
  for (const nb of shard.neighbours) {
    const what = nb.items[0]?.observed ? 'mean probability on the key in the responses' : "the model's P(key) at each θ";
    view.append(
      h('h3', null, `${nb.relation === 'above' ? 'Above it' : 'Below it'}: `, h('a', { href: `#/model/${nb.index}` }, nb.id)),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          null,
          h('caption', { class: 'muted' }, `P(key): ${what}`),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, 'Item'),
              h('th', { scope: 'col' }, 'Key'),
              h('th', { scope: 'col', class: 'num' }, `This model`),
              h('th', { scope: 'col', class: 'num' }, 'Neighbour'),
              h('th', { scope: 'col', class: 'num' }, 'Gap'),
            ),
          ),
          h(
            'tbody',
            null,
            ...nb.items.map((it) =>
              h(
                'tr',
                null,
                h('td', { class: 'model' }, h('a', { href: `#/item/${it.benchmark}/${it.shard}/${encodeURIComponent(it.id)}` }, it.id)),
                h('td', { class: 'model muted' }, it.keyText ?? ''),
                h('td', { class: 'num' }, fmt(it.self, 3)),
                h('td', { class: 'num' }, fmt(it.other, 3)),
                h('td', { class: 'num' }, fmt(it.self - it.other, 3)),
              ),
            ),
          ),
        ),
      ),
    );
  }
}
