import { FLEET_NUISANCE_BELOW, printable } from '@llm-nrm/core';
import { fmt, h, howTo, pct, replace } from '../dom.js';
import { leaderboard, manifest } from '../data.js';
import { added, board } from '../state.js';
import type { PredictedAccuracy, ScoreReply, ScoreRequest, ScoredRun } from '../worker.js';
import { adaptiveSection } from './adaptiveSection.js';

let worker: Worker | null = null;

function getWorker(): Worker {
  worker ??= new Worker(new URL('../worker.ts', import.meta.url), { type: 'module' });
  return worker;
}

/** A percentage with its interval, as `llm-nrm score <package>` prints it: `39.8% [35.5, 44.0]`. */
function pctInterval(p: PredictedAccuracy): string {
  return `${(100 * p.accuracy).toFixed(1)}% [${(100 * p.low).toFixed(1)}, ${(100 * p.high).toFixed(1)}]`;
}

/** `llm-nrm score <package>`'s line for a run: its rank interval and predicted full-bank accuracies. */
function packageLine(l: ScoredRun): string {
  const ri = l.rankInterval;
  const parts = Object.entries(l.predicted!).map(([b, v]) => `${b} ${pctInterval(v)}`);
  return `${l.id}: rank ${ri.lo}-${ri.hi} of ${ri.of} (${Math.round(100 * ri.level)}%); predicted full-bank accuracy ${parts.join('; ')}`;
}

/** Score a file's text in the worker; progress messages go to `onProgress`. */
function scoreInWorker(req: Omit<ScoreRequest, 'type' | 'bundleUrl'>, onProgress: (m: string) => void): Promise<Extract<ScoreReply, { type: 'result' }>> {
  const w = getWorker();
  return new Promise((ok, fail) => {
    const onMessage = (ev: MessageEvent<ScoreReply>) => {
      const m = ev.data;
      if (m.type === 'progress') onProgress(m.message);
      else {
        w.removeEventListener('message', onMessage);
        if (m.type === 'result') ok(m);
        else fail(new Error(m.message));
      }
    };
    w.addEventListener('message', onMessage);
    w.postMessage({ type: 'score', bundleUrl: new URL('data/bundle.json', document.baseURI).href, ...req } satisfies ScoreRequest);
  });
}

export async function scorePage(view: HTMLElement): Promise<void> {
  const [m, lb] = await Promise.all([manifest(), leaderboard()]);
  // A site built with a whole tiny package (`--tiny <package>`) scores that package's runs as `llm-nrm score <package>` does.
  const tinyUrl = m.tiny?.task !== undefined ? new URL('data/tiny.json', document.baseURI).href : null;
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const results = h('div', { id: 'score-results' });
  const input = h('input', { type: 'file', id: 'score-file', multiple: true, accept: '.jsonl,.json,application/json,application/x-ndjson' });
  const modelId = h('input', { type: 'text', id: 'score-model', value: 'my-model', size: 28, 'aria-describedby': 'model-help' });
  const scoring = h(
    'select',
    { id: 'score-scoring' },
    h('option', { value: 'raw' }, 'raw loglikelihood (acc)'),
    h('option', { value: 'chars' }, 'per character (acc_norm)'),
    h('option', { value: 'bytes' }, 'per byte'),
  );
  const skip = h('input', { type: 'checkbox', id: 'score-skip' });
  const drop = h(
    'label',
    { class: 'drop', for: 'score-file' },
    input,
    h('strong', null, 'Drop a responses file here, or press Enter to choose one'),
    h('br'),
    h(
      'span',
      { class: 'muted' },
      'tidy JSON Lines (llm-nrm convert) or an lm-eval-harness samples_<task>_<date>.jsonl, with its results_<date>.json (both at once) for an adaptive run',
    ),
  );
  drop.tabIndex = 0;
  drop.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      input.click();
    }
  });

  let busy = false;
  async function handle(dropped: File[]): Promise<void> {
    if (busy || dropped.length === 0) return;
    busy = true;
    status.classList.remove('error');
    status.textContent = `reading ${dropped.map((f) => `${f.name} (${(f.size / 1e6).toFixed(1)} MB)`).join(' and ')} in this browser…`;
    try {
      const gz = dropped.find((f) => /\.gz$/i.test(f.name));
      if (gz) throw new Error(`${gz.name}: gzipped files are not read here: gunzip it first (or use llm-nrm score)`);
      if (dropped.length > 2) throw new Error(`drop one responses file, with its results file for an lm-eval run (${dropped.length} files were dropped)`);
      const files = await Promise.all(dropped.map(async (f) => ({ name: f.name, text: await f.text() })));
      const t0 = performance.now();
      const res = await scoreInWorker(
        {
          tinyUrl,
          files,
          model: modelId.value.trim() || 'my-model',
          score: scoring.value as ScoreRequest['score'],
          skipInvalid: skip.checked,
        },
        (msg) => {
          status.textContent = msg;
        },
      );
      const secs = (performance.now() - t0) / 1000;
      const asPackage = res.scoredAs.kind === 'package';
      for (const l of res.llms) {
        const i = added.findIndex((a) => a.id === l.id && a.source === res.file);
        if (i >= 0) added.splice(i, 1);
        added.push({
          id: l.id,
          theta: l.theta,
          se: Number.isFinite(l.se) ? l.se : null,
          lo: Number.isFinite(l.se) ? l.theta - 1.959964 * l.se : null,
          hi: Number.isFinite(l.se) ? l.theta + 1.959964 * l.se : null,
          rank: 0,
          rankLo: 0,
          rankHi: 0,
          group: 0,
          // A package's run: its predicted full-bank accuracy, the number every other row shows; never its accuracy on the package's items.
          accuracy: l.predicted ? l.predicted['overall']!.accuracy : l.accuracy,
          cells: l.cells,
          sharpness: l.sharpness,
          fallbackStrength: l.fallback.length > 0 ? Math.max(...l.fallback) - Math.min(...l.fallback) : 0,
          fallbackUse: null,
          positionBias: l.positionBias,
          fallback: l.fallback,
          benchmarks: l.predicted ? m.benchmarks.map((b) => l.predicted![b.name]?.accuracy ?? null) : null,
          warnings: [],
          index: -1,
          added: true,
          outOfRange: false,
          source: res.file,
          nuisance: l.nuisance,
          ...(l.predicted ? { predicted: l.predicted } : {}),
        });
      }
      const rows = board(lb.llms, m);
      status.textContent = `Scored ${res.llms.length} model${res.llms.length === 1 ? '' : 's'} from ${res.records.toLocaleString('en')} ${res.format === 'tidy' ? 'tidy records' : 'lm-eval samples'} (${res.cells.toLocaleString('en')} cells) in ${secs.toFixed(1)} s${res.converged ? '' : '; the scoring did not converge, the estimates may be rough'}.`;
      replace(
        results,
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { id: 'scored' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ...[
                  ['Model', null],
                  ['θ', null],
                  ['SE', null],
                  ['Rank (90%)', `Rank among the ${m.llms} calibrated models and 90% interval (analysis' runRankInterval, as llm-nrm score prints it)`],
                  asPackage
                    ? [
                        'Predicted full-bank accuracy (90%)',
                        `Predicted accuracy on the whole bank, with its 90% interval, from the run's θ, sharpness and answers to the package's ${res.scoredAs.items} items (as llm-nrm score <package> prints it)`,
                      ]
                    : ['Accuracy (items answered)', "Share of the bank's items it answered whose most likely option was the key"],
                  ['Items', null],
                  ['Cells', null],
                  ['Sharpness', null],
                ].map(([t, title], i) => h('th', { scope: 'col', class: i > 0 ? 'num' : null, title }, t)),
              ),
            ),
            h(
              'tbody',
              null,
              ...res.llms.map((l) => {
                const r = rows.find((x) => x.added && x.id === l.id && x.source === res.file)!;
                return h(
                  'tr',
                  { 'data-model': l.id, 'data-theta': String(l.theta), 'data-se': String(l.se) },
                  h('td', { class: 'model' }, l.id, r.outOfRange ? h('span', { class: 'tag warn' }, 'outside calibrated range') : null),
                  h('td', { class: 'num' }, fmt(l.theta, 4)),
                  h('td', { class: 'num' }, Number.isFinite(l.se) ? `±${fmt(l.se, 4)}` : '–'),
                  h('td', { class: 'num rank' }, `${l.rankInterval.rank} (${l.rankInterval.lo}–${l.rankInterval.hi}) of ${l.rankInterval.of}`),
                  l.predicted
                    ? h(
                        'td',
                        { class: 'num accuracy predicted', title: 'predicted full-bank accuracy, 90% interval in brackets' },
                        pctInterval(l.predicted['overall']!),
                        h('span', { class: 'tag' }, 'predicted'),
                      )
                    : h('td', { class: 'num accuracy' }, pct(l.accuracy)),
                  h('td', { class: 'num' }, l.items.toLocaleString('en')),
                  h('td', { class: 'num' }, l.cells.toLocaleString('en')),
                  h(
                    'td',
                    {
                      class: 'num',
                      title:
                        l.nuisance === 'fleet'
                          ? "sharpness, bias and fallback held at the calibrated fleet's means (llm-nrm score --nuisance fleet)"
                          : l.nuisance === 'sharpness'
                            ? "fitted with θ; position bias and fallback not fitted from so few items (the calibrated fleet's spread as priors)"
                            : null,
                    },
                    l.nuisance === 'fleet' ? 'fleet mean' : fmt(l.sharpness),
                  ),
                );
              }),
            ),
          ),
        ),
        res.scoredAs.kind === 'package'
          ? h(
              'div',
              { id: 'package-run' },
              h(
                'p',
                null,
                `Scored as a run of the ${res.adaptive ? `adaptive package ${res.scoredAs.task} (${res.adaptive.items.length} of its ${res.scoredAs.items} items asked)` : `tiny package ${res.scoredAs.task} (${res.scoredAs.items} items)`}, as llm-nrm score <package> scores it. The accuracy shown is its predicted accuracy on the whole bank (${m.items.toLocaleString('en')} items), with a 90% interval, not its share right on the package's items: ${res.adaptive ? 'an adaptive run asks items aimed at its own level, about half of them right whatever its accuracy, so the prediction is the calibrated accuracy curve at its θ' : 'a few items are easier or harder than the bank'}. Its position bias and fallback are not fitted from so few items, so the leaderboard shows none for it.`,
              ),
              h('p', { class: 'muted' }, 'What llm-nrm score <package> prints for it:'),
              h('pre', { class: 'cli-line' }, res.llms.map(packageLine).join('\n')),
            )
          : h(
              'p',
              { id: 'bank-run', class: 'muted' },
              `Scored against the full bank (${res.scoredAs.items.toLocaleString('en')} items). The accuracy shown is its share right on the bank's items it answered (all of them: its full-bank accuracy; fewer: its accuracy on those)${m.tiny?.task !== undefined ? ` (a run of the ${m.tiny.adaptive === true ? 'adaptive' : 'tiny'} package ${m.tiny.task} alone is scored as that package scores it, with a predicted full-bank accuracy)` : ''}.`,
            ),
        res.adaptive && res.llms.length === 1
          ? adaptiveSection(res.adaptive, { theta: res.llms[0]!.theta, se: res.llms[0]!.se, asPackage: res.scoredAs.kind === 'package' })
          : null,
        res.unknown > 0 ? h('p', { class: 'muted' }, `${res.unknown} responses to items not in the bank were skipped.`) : null,
        res.notes.length > 0 ? h('details', null, h('summary', null, 'Reader notes'), h('ul', null, ...res.notes.map((n) => h('li', null, n)))) : null,
        h('p', null, h('a', { href: '#/', id: 'see-board' }, 'See it on the leaderboard →')),
      );
    } catch (e) {
      status.classList.add('error');
      status.textContent = printable((e as Error).message, { keepNewlines: true });
    } finally {
      busy = false;
      input.value = '';
    }
  }

  input.addEventListener('change', () => {
    void handle(Array.from(input.files ?? []));
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    void handle(Array.from(e.dataTransfer?.files ?? []));
  });

  view.append(
    h('h1', null, 'Score your model'),
    h(
      'p',
      { class: 'lede' },
      `Place a model on this leaderboard from its answers to the bank's items, with the calibration held fixed (${m.items.toLocaleString('en')} items, ${m.llms} calibrated models). The file is read and scored in this browser tab by @llm-nrm/core; nothing is uploaded.`,
    ),
    howTo(
      "Give the model's per-option scores: a tidy JSON Lines file (one record per model × item, from llm-nrm convert) or an lm-eval-harness samples file written with --log_samples. Only items of this bank count; tick the box to skip the others instead of stopping.",
      `The scoring fits the model's θ, sharpness, position bias and fallback with every item parameter fixed, exactly as llm-nrm score does, so the numbers match the command line. From fewer than ${FLEET_NUISANCE_BELOW} items it fits θ and sharpness, with position bias and fallback under the calibrated fleet's spread as priors (llm-nrm score --nuisance auto). Its SE says how much the θ rests on: few items give a wide interval; the rank interval is the central 90% of its rank over redraws of every θ within its SE.`,
      ...(m.tiny?.task !== undefined
        ? [
            m.tiny.adaptive === true
              ? `This site carries the adaptive package ${m.tiny.task} (a pool of ${m.tiny.items} items its runner asks from). A run of it (an lm-eval samples file of that task, with its results file for the items asked in order) is scored as llm-nrm score <package> scores it, and shows its predicted full-bank accuracy with a 90% interval: its share right on items aimed at its own level is not comparable with the other models' full-bank accuracy.`
              : `This site carries the tiny package ${m.tiny.task} (${m.tiny.items} items). A run of it (an lm-eval samples file of that task, or tidy records of its items only) is scored as llm-nrm score <package> scores it, and shows its predicted full-bank accuracy with a 90% interval: its share right on so few items is not comparable with the other models' full-bank accuracy.`,
          ]
        : []),
      'An adaptive run (a package published with llm-nrm publish --adaptive, run with its lm-eval/nrm_adaptive.py) asks each model the items most informative at its estimate so far and stops once the SE reaches its target. Drop its samples_<task>_<date>.jsonl and results_<date>.json together: the run is scored from the samples as above, and the results file adds the items it asked in order and how its SE fell round by round.',
    ),
    drop,
    h(
      'div',
      { class: 'controls' },
      h('label', { for: 'score-model' }, 'Model id (lm-eval samples only)', modelId),
      h('label', { for: 'score-scoring' }, 'lm-eval option scoring', scoring),
      h('label', null, h('span', null, skip, ' skip responses to items not in the bank')),
    ),
    h(
      'p',
      { id: 'model-help', class: 'muted' },
      'A tidy file names its models itself; an lm-eval samples file does not, so give the id here (a results file dropped with it names the model, and that name is used).',
    ),
    status,
    results,
  );
  if (added.length > 0) {
    view.append(h('p', { class: 'muted' }, `Already scored in this tab: ${added.map((a) => a.id).join(', ')}.`));
  }
}
