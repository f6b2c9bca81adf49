import { describeValue } from '@llm-nrm/core';
import type { ItemSource, ResponseRecord } from '@llm-nrm/core';
import type { OptionScoring } from '../reader.js';
import { goldIndex, letterLabels } from './goldIndex.js';
import { codePointLength, leafNumber, utf8Length } from './leafValues.js';

/** The parts of a task's config (results file `configs[task]`) the reader uses. */
export interface LmEvalTaskConfig {
  output_type?: string;
  target_delimiter?: string;
  fewshot_delimiter?: string;
  doc_to_choice?: unknown;
  test_split?: string;
}

/** What one file's conversion counted, summarised in the report notes. */
export interface SampleCounts {
  /** Option scores that were NaN (treated as no mass, -Infinity). */
  nanScores: number;
  /** Samples whose every option score was -Infinity/NaN: emitted as missing (`choice: null`). */
  allMissing: number;
  /** Generated answers `[invalid]` (missing). */
  invalidAnswers: number;
  /** Generated answers that match no option label or text (missing). */
  unmatchedAnswers: number;
  /** Samples with several true options (first one keyed). */
  multiGold: number;
  /** acc_mutual_info samples (2K requests; unconditional half ignored). */
  mutualInfo: number;
  /** Options of zero length under chars/bytes scoring (raw score kept). */
  zeroLength: number;
}

export function newCounts(): SampleCounts {
  return { nanScores: 0, allMissing: 0, invalidAnswers: 0, unmatchedAnswers: 0, multiGold: 0, mutualInfo: 0, zeroLength: 0 };
}

export interface SampleContext {
  task: string;
  model: string;
  score: OptionScoring;
  config?: LmEvalTaskConfig | undefined;
  counts: SampleCounts;
}

/**
 * The item id of a sample: a doc that carries its own string `item_id` (llm-nrm's published tiny
 * tasks do) keeps it, so a tiny run matches the bank's items; otherwise `<task>/<doc_id>`.
 */
function sampleItemId(raw: Obj, task: string, id: string): string {
  const doc = raw.doc;
  if (isObj(doc) && typeof doc.item_id === 'string' && doc.item_id !== '') return doc.item_id;
  return `${task}/${id}`;
}

/** Where the sample came from: harness, task, doc id and (from the task config) split. */
function sampleSource(ctx: SampleContext, id: string, raw?: Obj): ItemSource {
  const s: ItemSource = { harness: 'lm-eval', task: ctx.task, docId: id };
  if (typeof ctx.config?.test_split === 'string') s.split = ctx.config.test_split;
  // The harness's hash of the document: two data sets that number docs alike differ here.
  if (typeof raw?.doc_hash === 'string' && raw.doc_hash !== '') s.docHash = raw.doc_hash;
  return s;
}

/** A converted sample (with its filter name), or why it was skipped. */
export type SampleResult = { record: ResponseRecord; filter: string } | { skip: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function docId(raw: Obj): string | null {
  const id = raw.doc_id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id === 'string' && id !== '') return id;
  return null;
}

/** `arguments` as [context, continuation-or-gen-kwargs] pairs: v0.4.3+ object or v0.4.0-0.4.2 list of tuples. */
function requestArgs(args: unknown): [unknown, unknown][] | null {
  if (Array.isArray(args)) {
    const out: [unknown, unknown][] = [];
    for (const a of args) {
      if (!Array.isArray(a)) return null;
      out.push([a[0], a[1]]);
    }
    return out;
  }
  if (isObj(args)) {
    const keys = Object.keys(args).filter((k) => /^gen_args_\d+$/.test(k));
    keys.sort((a, b) => Number(a.slice(9)) - Number(b.slice(9)));
    const out: [unknown, unknown][] = [];
    for (const k of keys) {
      const g = args[k];
      if (!isObj(g)) return null;
      out.push([g.arg_0, g.arg_1]);
    }
    return out;
  }
  return null;
}

/** The score (loglikelihood) of a per-request response: `[lp, greedy]`, `[[lp, greedy]]` or `lp`. */
function responseScore(v: unknown): number {
  let x = v;
  while (Array.isArray(x)) x = x[0];
  return leafNumber(x);
}

/**
 * Texts after the longest shared prefix, cut back to the last few-shot delimiter inside it: the
 * part of each full prompt that differs (winogrande's partial sentences, write_out prompts).
 */
export function distinctTails(texts: readonly string[], delimiter = '\n\n'): string[] {
  if (texts.length < 2) return texts.slice();
  const a = texts[0]!;
  let n = a.length;
  for (let t = 1; t < texts.length; t++) {
    const b = texts[t]!;
    const m = Math.min(n, b.length);
    let i = 0;
    while (i < m && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    n = i;
  }
  let cut = -1;
  for (const d of [delimiter, '\n']) {
    if (d === '' || n < d.length) continue;
    const at = a.lastIndexOf(d, n - d.length);
    if (at >= 0) {
      cut = at + d.length;
      break;
    }
  }
  const start = cut < 0 ? 0 : cut;
  return texts.map((s) => s.slice(start));
}

/** Label-like continuations (" A", "(B)", "3"): the options are scored as labels, their texts live in doc. */
function labelLike(s: string): boolean {
  return /^\(?[A-Za-z0-9]{1,2}[).:]?$/.test(s.trim());
}

function scoreOptions(lps: number[], scored: readonly string[], mode: OptionScoring, counts: SampleCounts): number[] {
  const out = new Array<number>(lps.length);
  for (let i = 0; i < lps.length; i++) {
    let lp = lps[i]!;
    if (Number.isNaN(lp)) {
      counts.nanScores++;
      lp = -Infinity;
    }
    if (mode !== 'raw' && lp !== -Infinity) {
      const len = mode === 'chars' ? codePointLength(scored[i]!) : utf8Length(scored[i]!);
      if (len > 0) lp /= len;
      else counts.zeroLength++;
    }
    out[i] = lp;
  }
  return out;
}

function softOrMissing(base: ResponseRecord, scores: number[], counts: SampleCounts): ResponseRecord {
  if (scores.every((s) => s === -Infinity)) {
    counts.allMissing++;
    base.choice = null;
    base.nOptions = scores.length;
  } else base.logprobs = scores;
  return base;
}

/** One v0.3 `--write_out` element: `prompt_i`, `logit_i` (summed loglikelihoods), `truth`. */
function writeOutRecord(raw: Obj, id: string, ctx: SampleContext): SampleResult {
  const lps: number[] = [];
  const prompts: string[] = [];
  for (let i = 0; `logit_${i}` in raw; i++) {
    lps.push(leafNumber(raw[`logit_${i}`]));
    const p = raw[`prompt_${i}`];
    prompts.push(typeof p === 'string' ? p : '');
  }
  if (lps.length < 2) return { skip: `write_out record has ${lps.length} logit_i values: not multiple choice` };
  if (lps.some((x) => x === Infinity)) return { skip: `invalid loglikelihood: ${describeValue(lps)}` };
  const options = distinctTails(prompts, ctx.config?.fewshot_delimiter ?? '\n\n');
  const t = raw.truth;
  const key = typeof t === 'number' ? t : typeof t === 'string' && /^\d+$/.test(t.trim()) ? Number(t) : NaN;
  if (!(Number.isInteger(key) && key >= 0 && key < lps.length)) return { skip: `gold out of range: truth ${describeValue(t)} (${lps.length} options)` };
  const base: ResponseRecord = { model: ctx.model, item: `${ctx.task}/${id}`, benchmark: ctx.task, key, options, source: sampleSource(ctx, id) };
  const split = writeOutMultipleInput(prompts);
  if (split !== null) {
    base.contexts = split.contexts;
    base.continuations = split.contexts.map(() => split.continuation);
  }
  return { record: softOrMissing(base, scoreOptions(lps, options, ctx.score, ctx.counts), ctx.counts), filter: 'none' };
}

/**
 * The per-option contexts and shared continuation of a v0.3 `--write_out` record of a
 * multiple-input task, or null when its prompts do not have that shape. v0.3 writes each request
 * as `prompt_i` = context + continuation joined, so the split is not recorded: winogrande's
 * partial evaluation scores `" " + the rest of the sentence` after the sentence up to the blank
 * filled by option i, so the continuation is the prompts' shared suffix from its first space.
 * That is exact unless the options end in the same word; to stay clear of ordinary
 * multiple-choice prompts that happen to end alike (" ... the bowl." after different solutions),
 * each option's distinct middle must be a short phrase (at most 4 words, as winogrande's names and
 * noun phrases are: all 1,267 items of the fixture's three logs) or no longer than the shared
 * continuation, and the contexts must differ. Otherwise null: the record keeps no contexts
 * (publish then refuses or renders the item).
 */
export function writeOutMultipleInput(prompts: readonly string[]): { contexts: string[]; continuation: string } | null {
  if (prompts.length < 2) return null;
  const a = prompts[0]!;
  let pre = a.length;
  let suf = a.length;
  for (const b of prompts.slice(1)) {
    const m = Math.min(a.length, b.length);
    let i = 0;
    while (i < Math.min(pre, m) && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    pre = i;
    let j = 0;
    while (j < Math.min(suf, m) && a.charCodeAt(a.length - 1 - j) === b.charCodeAt(b.length - 1 - j)) j++;
    suf = j;
  }
  const shared = a.slice(a.length - suf);
  const space = shared.indexOf(' ');
  if (space < 0) return null;
  const continuation = shared.slice(space);
  if (continuation.trim() === '') return null;
  const contexts = prompts.map((p) => p.slice(0, p.length - continuation.length));
  if (new Set(contexts).size !== contexts.length) return null;
  // Each context's part after the shared prefix: the option (and what the options share at its end).
  const start = Math.min(pre, ...contexts.map((c) => c.length));
  const words = (t: string) => t.trim().split(/\s+/).length;
  if (contexts.some((c) => words(c.slice(start)) > 4 && c.length - start > continuation.length)) return null;
  return { contexts, continuation };
}

/** Option texts and labels of a generate_until sample, from its doc or the task's doc_to_choice list. */
function generatedOptions(doc: Obj, config: LmEvalTaskConfig | undefined): { options: string[]; labels: string[]; oneBased: boolean } | null {
  if (typeof doc.option1 === 'string' && typeof doc.option2 === 'string') {
    const options: string[] = [];
    for (let i = 1; typeof doc[`option${i}`] === 'string'; i++) options.push(doc[`option${i}`] as string);
    return { options, labels: options.map((_, i) => String(i + 1)), oneBased: true };
  }
  const ch = doc.choices;
  if (Array.isArray(ch) && ch.length >= 2 && ch.every((c) => typeof c === 'string')) {
    return { options: ch as string[], labels: letterLabels(ch.length), oneBased: false };
  }
  if (isObj(ch) && Array.isArray(ch.text) && Array.isArray(ch.label) && ch.text.length === ch.label.length && ch.text.length >= 2) {
    return { options: ch.text.map(String), labels: ch.label.map(String), oneBased: false };
  }
  if (Array.isArray(doc.endings) && doc.endings.length >= 2) {
    const o = doc.endings.map(String);
    return { options: o, labels: letterLabels(o.length), oneBased: false };
  }
  const dc = config?.doc_to_choice;
  if (Array.isArray(dc) && dc.length >= 2 && dc.every((c) => typeof c === 'string')) {
    return { options: dc as string[], labels: dc as string[], oneBased: false };
  }
  return null;
}

/** Index of a generated answer among labels, then option texts; -1 when it matches none. */
function answerIndex(answer: string, labels: readonly string[], options: readonly string[]): number {
  let a = answer
    .trim()
    .replace(/[.。]+$/, '')
    .trim();
  const paren = /^\((.+)\)$/.exec(a);
  if (paren) a = paren[1]!.trim();
  let i = labels.indexOf(a);
  if (i >= 0) return i;
  const lower = a.toLowerCase();
  i = labels.findIndex((l) => l.toLowerCase() === lower);
  if (i >= 0) return i;
  return options.findIndex((o) => o.trim().toLowerCase() === lower);
}

function generatedRecord(raw: Obj, id: string, ctx: SampleContext, filter: string): SampleResult {
  const doc = isObj(raw.doc) ? raw.doc : {};
  const opts = generatedOptions(doc, ctx.config);
  if (opts === null) return { skip: 'generate_until sample: no option list in doc or task config (not multiple choice)' };
  const k = opts.options.length;
  let key = -1;
  if (opts.oneBased && doc.answer !== undefined) key = answerIndex(String(doc.answer), opts.labels, opts.options);
  if (key < 0) {
    const g = goldIndex(doc, raw.target, k, opts.labels, opts.options, false);
    if ('error' in g) return { skip: g.error };
    key = g.key;
  }
  const fr = raw.filtered_resps;
  let answer: unknown = Array.isArray(fr) ? fr[0] : fr;
  while (Array.isArray(answer)) answer = answer[0];
  if (typeof answer !== 'string') return { skip: `generate_until sample without a generated answer: filtered_resps ${describeValue(fr)}` };
  let choice: number | null;
  if (answer.trim() === '[invalid]') {
    ctx.counts.invalidAnswers++;
    choice = null;
  } else {
    const i = answerIndex(answer, opts.labels, opts.options);
    if (i < 0) ctx.counts.unmatchedAnswers++;
    choice = i < 0 ? null : i;
  }
  const record: ResponseRecord = {
    model: ctx.model,
    item: sampleItemId(raw, ctx.task, id),
    benchmark: ctx.task,
    key,
    options: opts.options,
    choice,
    nOptions: k,
  };
  // A generated answer scored no continuation: the prompt is exact, `continuations` stay unset.
  const args = requestArgs(raw.arguments);
  const prompt = args?.[0]?.[0];
  if (typeof prompt === 'string') record.prompt = prompt;
  record.source = sampleSource(ctx, id, raw);
  return { record, filter };
}

/** One lm-eval sample (any version) as a tidy record, or the reason it cannot be one. */
export function sampleRecord(raw: unknown, ctx: SampleContext): SampleResult {
  if (!isObj(raw)) return { skip: `not a sample object: ${describeValue(raw)}` };
  const id = docId(raw);
  if (id === null) return { skip: `not an lm-eval sample: no doc_id (keys ${Object.keys(raw).slice(0, 6).join(', ')})` };
  if ('logit_0' in raw) return writeOutRecord(raw, id, ctx);
  const filter = typeof raw.filter === 'string' ? raw.filter : 'none';
  const args = requestArgs(raw.arguments);
  if (args === null || args.length === 0) return { skip: 'sample without request arguments' };
  const out = ctx.config?.output_type;
  // The sample's own shape decides first (a gen-kwargs object as arg_1), the task config second.
  const generative = args.some((a) => typeof a[1] !== 'string') || out === 'generate_until';
  if (generative) return generatedRecord(raw, id, ctx, filter);
  if (out === 'loglikelihood' || out === 'loglikelihood_rolling') return { skip: `${out} task: no options (not multiple choice)` };
  let k = args.length;
  // acc_mutual_info appends K unconditional ("", choice) requests after the K conditional ones.
  if (k >= 4 && k % 2 === 0 && args.slice(k / 2).every((a) => a[0] === '') && args.slice(0, k / 2).every((a) => a[0] !== '')) {
    k /= 2;
    ctx.counts.mutualInfo++;
  }
  if (k < 2) return { skip: `${k} request: not multiple choice (loglikelihood task)` };
  const conts = args.slice(0, k).map((a) => (typeof a[1] === 'string' ? a[1] : ''));
  const ctxs = args.slice(0, k).map((a) => (typeof a[0] === 'string' ? a[0] : JSON.stringify(a[0])));
  const multipleInput = conts.every((c) => c === conts[0]) && new Set(ctxs).size === k;
  let scored: string[];
  if (multipleInput) scored = distinctTails(ctxs, ctx.config?.fewshot_delimiter ?? '\n\n');
  else {
    const delim = ctx.config?.target_delimiter ?? ' ';
    scored = delim !== '' && conts.every((c) => c.startsWith(delim)) ? conts.map((c) => c.slice(delim.length)) : conts;
  }
  const doc = isObj(raw.doc) ? raw.doc : {};
  const docChoices = doc.choices;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.length === k && v.every((c) => typeof c === 'string');
  // An llm-nrm tiny task's doc carries the calibration's option texts (what the bank knows the item by).
  const tinyOptions = typeof doc.item_id === 'string' && strings(doc.options) ? doc.options : null;
  const display = tinyOptions ?? (!multipleInput && strings(docChoices) && scored.every(labelLike) ? docChoices : scored);
  const fr = Array.isArray(raw.filtered_resps) && raw.filtered_resps.length >= k ? raw.filtered_resps : raw.resps;
  if (!Array.isArray(fr) || fr.length < k) return { skip: `expected ${k} option responses, got ${Array.isArray(fr) ? fr.length : 'none'}` };
  const lps = new Array<number>(k);
  for (let i = 0; i < k; i++) {
    const lp = responseScore(fr[i]);
    if (lp === Infinity) return { skip: `invalid loglikelihood for option ${i}: ${describeValue(fr[i])}` };
    lps[i] = lp;
  }
  const g = goldIndex(doc, raw.target, k, scored, display, multipleInput);
  if ('error' in g) return { skip: g.error };
  if (g.multi) ctx.counts.multiGold++;
  const base: ResponseRecord = { model: ctx.model, item: sampleItemId(raw, ctx.task, id), benchmark: ctx.task, key: g.key, options: display };
  // One context scored against k continuations: that pair is the exact request. Multiple-input
  // tasks (winogrande's loglikelihood form) score one continuation after k contexts, which no
  // single prompt represents: they keep the k contexts instead (publish exports them as a
  // multiple-input task).
  if (!multipleInput && args.slice(0, k).every((a) => a[0] === args[0]![0]) && typeof args[0]![0] === 'string') {
    base.prompt = args[0]![0];
    base.continuations = conts;
  } else if (multipleInput && args.slice(0, k).every((a) => typeof a[0] === 'string')) {
    base.contexts = ctxs;
    base.continuations = conts;
  }
  base.source = sampleSource(ctx, id, raw);
  return { record: softOrMissing(base, scoreOptions(lps, scored, ctx.score, ctx.counts), ctx.counts), filter };
}
