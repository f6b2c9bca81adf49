import { chart, Plot } from '../charts.js';
import { fmt, h, howTo, replace } from '../dom.js';
import { benchmarkShard, itemIndex, manifest } from '../data.js';
import { ACCENT, MUTED, WARN } from '../palette.js';
import type { ItemRow } from '@llm-nrm/site/types';

const PAGE = 50;

export async function benchmarkPage(view: HTMLElement, args: string[]): Promise<void> {
  const id = args[0] && args[0] !== '' ? args[0] : 'all';
  const m = await manifest();
  const bench = await benchmarkShard(id);
  const select = h(
    'select',
    { 'aria-label': 'Benchmark' },
    h('option', { value: 'all' }, `All benchmarks (${m.items} items)`),
    ...m.benchmarks.map((b) => h('option', { value: String(b.id) }, `${b.name} (${b.items} items)`)),
  );
  select.value = id;
  select.addEventListener('change', () => {
    location.hash = `#/benchmark/${select.value}`;
  });

  const th = bench.theta;
  const series = (name: string, values: (number | null)[]) => th.map((t, i) => ({ theta: t, v: values[i] ?? NaN, name }));
  const infoData = [...series(`full bank (${bench.items} items)`, bench.full.total)];
  const seData = [...series(`full bank (${bench.items} items)`, bench.full.se)];
  if (bench.tiny) {
    infoData.push(...series(`tiny subset (${bench.tiny.items} items)`, bench.tiny.total));
    seData.push(...series(`tiny subset (${bench.tiny.items} items)`, bench.tiny.se));
  }
  const names = [...new Set(infoData.map((d) => d.name))];
  const color = { domain: names, range: [ACCENT, WARN] };
  const at = (arr: (number | null)[], t: number) => arr[th.indexOf(t)] ?? NaN;
  const fullDesc =
    `Test information at θ = -2, 0, 2: ${fmt(at(bench.full.total, -2))}, ${fmt(at(bench.full.total, 0))}, ${fmt(at(bench.full.total, 2))} for the full bank` +
    (bench.tiny
      ? `; ${fmt(at(bench.tiny.total, -2))}, ${fmt(at(bench.tiny.total, 0))}, ${fmt(at(bench.tiny.total, 2))} for the tiny subset of ${bench.tiny.items} items`
      : '') +
    '.';
  const seDesc =
    `Standard error of θ at θ = -2, 0, 2: ${fmt(at(bench.full.se, -2), 3)}, ${fmt(at(bench.full.se, 0), 3)}, ${fmt(at(bench.full.se, 2), 3)} for the full bank` +
    (bench.tiny ? `; ${fmt(at(bench.tiny.se, -2), 3)}, ${fmt(at(bench.tiny.se, 0), 3)}, ${fmt(at(bench.tiny.se, 2), 3)} for the tiny subset` : '') +
    '.';
  const split = th.flatMap((t, i) => [
    { theta: t, part: 'binary (right/wrong)', v: bench.full.binary[i]! },
    { theta: t, part: 'distractor choice', v: bench.full.wrong[i]! },
  ]);

  view.append(
    h('h1', null, bench.name),
    h(
      'p',
      { class: 'lede' },
      `${bench.items.toLocaleString('en')} items. ${m.tiny ? `Tiny subset: ${bench.tiny && bench.tiny.items !== m.tiny.items ? `${bench.tiny.items} of these items, among the ${m.tiny.items}` : `${m.tiny.items} items`} published in ${m.tiny.source}.` : 'No tiny subset was given to the build (llm-nrm leaderboard --tiny <published folder>).'}`,
    ),
    h('div', { class: 'controls' }, h('label', null, 'Benchmark', select)),
    howTo(
      'Test information is the sum over items of what each says about θ at that ability (Fisher information, the NRM part). Where it is high, scores are precise: the standard error of θ from these items alone is 1/√information, drawn in the second chart.',
      'A published tiny subset keeps a few items chosen for their information; comparing its curves with the full bank shows what the compression costs at each ability.',
      'The split shows how much of the information comes from right/wrong alone and how much from which wrong option was chosen.',
    ),
    h(
      'div',
      { class: 'grid2' },
      chart(
        {
          width: 560,
          height: 280,
          marginLeft: 55,
          x: { label: 'Ability θ' },
          y: { label: 'Test information', grid: true, type: 'log', nice: true, tickFormat: ',~g' },
          color,
          marks: [
            Plot.line(
              infoData.filter((d) => d.v > 0),
              { x: 'theta', y: 'v', stroke: 'name', strokeWidth: 2 },
            ),
          ],
        },
        { title: 'Test information', description: fullDesc },
      ),
      chart(
        {
          width: 560,
          height: 280,
          marginLeft: 55,
          x: { label: 'Ability θ' },
          y: { label: 'SE of θ', grid: true, type: 'log', nice: true, tickFormat: ',~g' },
          color,
          marks: [
            Plot.line(
              seData.filter((d) => Number.isFinite(d.v)),
              { x: 'theta', y: 'v', stroke: 'name', strokeWidth: 2 },
            ),
          ],
        },
        { title: 'Standard error of θ', description: seDesc },
      ),
    ),
    h('div', { class: 'legend' }, ...names.map((n, i) => h('span', null, h('span', { class: 'sw', 'data-c': i === 0 ? 'accent' : 'warn' }), n))),
    chart(
      {
        width: 900,
        height: 220,
        marginLeft: 55,
        x: { label: 'Ability θ' },
        y: { label: 'Test information', grid: true },
        color: { domain: ['binary (right/wrong)', 'distractor choice'], range: [ACCENT, WARN] },
        marks: [Plot.areaY(split, { x: 'theta', y: 'v', fill: 'part', fillOpacity: 0.75 }), Plot.ruleY([0])],
      },
      {
        title: 'Binary and distractor parts (full bank)',
        description: `At θ = 0 the distractors add ${fmt((100 * at(bench.full.wrong, 0)) / (at(bench.full.total, 0) || 1), 0)}% of the information.`,
      },
    ),
  );

  if (bench.compression) {
    const data = bench.compression.flatMap((p) => [
      { budget: p.budget, v: p.kendall, name: 'selected items' },
      ...(p.kendallRandom === null ? [] : [{ budget: p.budget, v: p.kendallRandom, name: 'random items' }]),
    ]);
    view.append(
      h('h2', null, 'Compression'),
      chart(
        {
          width: 700,
          height: 260,
          marginLeft: 55,
          x: { label: 'Items kept', type: 'log' },
          y: { label: 'Kendall τ with the full-bank ranking', domain: [Math.min(0, ...data.map((d) => d.v)), 1], grid: true },
          color: { domain: ['selected items', 'random items'], range: [ACCENT, MUTED] },
          marks: [Plot.line(data, { x: 'budget', y: 'v', stroke: 'name', strokeWidth: 2 }), Plot.dot(data, { x: 'budget', y: 'v', fill: 'name' })],
        },
        {
          title: 'Compression curve',
          description: `How well the ranking from a few selected items agrees with the full bank's: ${bench.compression.map((p) => `${p.budget} items τ ${fmt(p.kendall)}`).join('; ')}.`,
        },
      ),
    );
  }

  // The items, lazily: one index per benchmark, a page of rows at a time.
  const benches = id === 'all' ? m.benchmarks : m.benchmarks.filter((b) => String(b.id) === id);
  const body = h('tbody');
  const pager = h('div', { class: 'pager' });
  const flagged = h('input', { type: 'checkbox' });
  let rows: (ItemRow & { b: number })[] = [];
  let page = 0;
  let sortKey: 'information' | 'difficulty' | 'id' = 'information';
  const draw = () => {
    const list = (flagged.checked ? rows.filter((r) => r.flags.length > 0) : rows).slice();
    list.sort((a, b) => (sortKey === 'id' ? (a.id < b.id ? -1 : 1) : b[sortKey] - a[sortKey]));
    const pages = Math.max(1, Math.ceil(list.length / PAGE));
    page = Math.min(page, pages - 1);
    replace(
      body,
      list
        .slice(page * PAGE, page * PAGE + PAGE)
        .map((r) =>
          h(
            'tr',
            null,
            h('td', { class: 'model' }, h('a', { href: `#/item/${r.b}/${r.shard}/${encodeURIComponent(r.id)}` }, r.id)),
            h('td', { class: 'model muted' }, r.keyText ?? ''),
            h('td', { class: 'num' }, String(r.nOptions)),
            h('td', { class: 'num' }, fmt(r.difficulty)),
            h('td', { class: 'num' }, fmt(r.information, 3)),
            h('td', null, r.flags.join(', ')),
          ),
        ),
    );
    replace(
      pager,
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            page = Math.max(0, page - 1);
            draw();
          },
        },
        '← Previous',
      ),
      h('span', { 'aria-live': 'polite' }, `Page ${page + 1} of ${pages} (${list.length} items)`),
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            page = Math.min(pages - 1, page + 1);
            draw();
          },
        },
        'Next →',
      ),
    );
  };
  flagged.addEventListener('change', () => {
    page = 0;
    draw();
  });
  const sortSel = h(
    'select',
    { 'aria-label': 'Sort items by' },
    h('option', { value: 'information' }, 'information'),
    h('option', { value: 'difficulty' }, 'difficulty'),
    h('option', { value: 'id' }, 'id'),
  );
  sortSel.addEventListener('change', () => {
    sortKey = sortSel.value as typeof sortKey;
    draw();
  });
  view.append(
    h('h2', null, 'Items'),
    h('div', { class: 'controls' }, h('label', null, 'Sort by', sortSel), h('label', null, h('span', null, flagged, ' only flagged items'))),
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
            ...['Item', 'Key', 'Options', 'Difficulty', 'Information', 'Flags'].map((t, i) =>
              h('th', { scope: 'col', class: i >= 2 && i <= 4 ? 'num' : null }, t),
            ),
          ),
        ),
        body,
      ),
    ),
    pager,
  );
  const indexes = await Promise.all(benches.map((b) => itemIndex(b.id).then((x) => x.items.map((r) => ({ ...r, b: b.id })))));
  rows = indexes.flat();
  draw();
}
