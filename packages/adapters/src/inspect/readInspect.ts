// Inspect AI eval logs (`.eval` ZIP archives and legacy `.json` logs) -> tidy response records.
// Spec: shared/docs/formats/helm-openai-inspect.md, part 3. `.eval` samples are read one archive
// member at a time; a legacy JSON log is one document (the whole EvalLog) and is read whole.
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeValue, LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { optionDistributionFromTopLogprobs, type TopLogprob } from '../extract/optionDistributionFromTopLogprobs.js';
import { guardUnit } from '../internal/batch.js';
import { isDirectory, listFiles, parseJsonText, readJsonDocument } from '../internal/jsonFiles.js';
import { displayLetter, isIdentity, parseOptionBlock, positionsByText } from '../internal/parseOptionBlock.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';
import { openZip } from './openZip.js';

// `any`: log JSON is walked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = any;

const SHUFFLED_HEADER = 'Choices were shuffled before generating a response, the following was sent to the model:';

interface LogContext {
  file: string;
  model: string;
  benchmark: string;
  report: ReadReport;
  counts: {
    hard: number;
    soft: number;
    missing: number;
    shuffled: number;
    multiTarget: number;
    epochs: number;
    noChoices: number;
    samples: number;
    noTop: number;
  };
}

/** Letter(s) of an answer or target (`"A"`, `"A, C"`, `"AC"`, `["A","C"]`) as displayed indices. */
function letterIndices(v: Json, n: number): number[] | null {
  const parts: string[] = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(/[\s,]+/).filter((s) => s !== '') : [];
  const out: number[] = [];
  for (const p of parts) {
    // "AC" (multiple-correct target) is two letters.
    for (const ch of /^[A-Z]+$/.test(p) ? p.split('') : [p]) {
      const i = /^[A-Z]$/.test(ch) ? ch.charCodeAt(0) - 65 : -1;
      if (i < 0 || i >= n) return null;
      out.push(i);
    }
  }
  return out.length > 0 ? out : null;
}

/** Text of a chat message content: a string or a list of content parts. */
function contentText(content: Json): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Json) => (c?.type === 'text' || typeof c?.text === 'string' ? String(c.text ?? '') : '')).join('');
  return '';
}

/**
 * Displayed position of each option. Solver-level shuffling (`multiple_choice(shuffle=True)`) keeps
 * `choices` in the original order and writes what the model saw into the explanation; otherwise the
 * user prompt's `A) ...` block shows the order. Null when the order shown is the content order.
 */
function displayedPositions(sample: Json, choices: string[], score: Json, ctx: LogContext): number[] | null {
  const expl = typeof score?.explanation === 'string' ? score.explanation : '';
  let shown: string[] | null = null;
  if (expl.startsWith(SHUFFLED_HEADER)) {
    const body = expl.slice(SHUFFLED_HEADER.length);
    const end = body.indexOf('\nShuffled answer:');
    shown = parseOptionBlock(end >= 0 ? body.slice(0, end) : body);
  } else {
    const user = Array.isArray(sample?.messages) ? sample.messages.find((m: Json) => m?.role === 'user') : undefined;
    if (user !== undefined) shown = parseOptionBlock(contentText(user.content));
  }
  if (shown === null) return null;
  const pos = positionsByText(choices, shown);
  if (pos === null || isIdentity(pos)) return null;
  ctx.counts.shuffled++;
  return pos;
}

/**
 * The answer token's top-k list: the first token naming an option letter after the last `ANSWER:`
 * in the completion (or the first such token when there is no `ANSWER:`).
 */
function answerTopLogprobs(output: Json, n: number): TopLogprob[] | null {
  const content = output?.choices?.[0]?.logprobs?.content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const letters = new Set(Array.from({ length: n }, (_, i) => displayLetter(i)));
  const starts: number[] = [];
  let text = '';
  for (const t of content) {
    starts.push(text.length);
    text += String(t?.token ?? '');
  }
  const m = [...text.matchAll(/ANSWER\s*:\s*/gi)].pop();
  const from = m ? m.index! + m[0].length : 0;
  for (let i = 0; i < content.length; i++) {
    const end = starts[i]! + String(content[i]?.token ?? '').length;
    if (end <= from) continue;
    const tok = String(content[i]?.token ?? '')
      .trim()
      .replace(/^\(/, '')
      .replace(/[).:]$/, '');
    if (!letters.has(tok)) continue;
    const top = content[i]?.top_logprobs;
    return Array.isArray(top) && top.length > 0 ? top : [{ token: content[i].token, logprob: content[i].logprob }];
  }
  return null;
}

/**
 * Prompt, continuations and source of a sample: the prompt is the user message the model saw (the
 * rendered question and choices), else the sample input; the answer is read from the option letter
 * the model wrote, so each option's continuation is its displayed letter.
 */
function sampleContent(rec: ResponseRecord, sample: Json, ctx: LogContext, pos: number[] | null): void {
  const user = Array.isArray(sample?.messages) ? sample.messages.find((m: Json) => m?.role === 'user') : undefined;
  const prompt =
    user !== undefined
      ? contentText(user.content)
      : typeof sample?.input === 'string'
        ? sample.input
        : Array.isArray(sample?.input)
          ? contentText(sample.input.find((m: Json) => m?.role === 'user')?.content)
          : '';
  if (prompt !== '') {
    rec.prompt = prompt;
    rec.continuations = rec.options!.map((_, k) => displayLetter(pos === null ? k : pos[k]!));
  }
  rec.source = { harness: 'inspect', task: ctx.benchmark, docId: String(sample?.id ?? '') };
}

/** The record of one sample, or a skip reason. */
function sampleRecord(sample: Json, ctx: LogContext, scorer: string | undefined): ResponseRecord | string {
  const where = `sample ${describeValue(sample?.id)} epoch ${sample?.epoch ?? 1}`;
  const choices = sample?.choices;
  if (!Array.isArray(choices) || choices.length < 2) {
    ctx.counts.noChoices++;
    return `${where}: no choices (not multiple choice)`;
  }
  const options = choices.map(String);
  const n = options.length;
  const target = letterIndices(sample.target, n);
  if (target === null) return `${where}: target is not an option letter: ${describeValue(sample.target)}`;
  if (target.length > 1) ctx.counts.multiTarget++;
  if (Number(sample.epoch ?? 1) > 1) ctx.counts.epochs++;
  // A sample whose metadata names its item (llm-nrm's published tiny tasks do) keeps that id.
  const metaId = sample?.metadata?.item_id;
  const item = typeof metaId === 'string' && metaId !== '' ? metaId : `${ctx.benchmark}/${sample.id}`;
  const rec: ResponseRecord = { model: ctx.model, item, benchmark: ctx.benchmark, key: target[0]!, options };
  const scores = sample.scores ?? {};
  const score = scorer !== undefined ? scores[scorer] : undefined;
  const pos = displayedPositions(sample, options, score, ctx);
  if (pos !== null) rec.position = pos;
  sampleContent(rec, sample, ctx, pos);
  if (sample.error !== undefined && sample.error !== null) {
    rec.choice = null;
    ctx.counts.missing++;
    return rec;
  }
  // Soft: logprobs refer to the letters the model saw (displayed order); map back to content order.
  const top = answerTopLogprobs(sample.output, n);
  if (top !== null) {
    const d = optionDistributionFromTopLogprobs(top, n);
    if (d.probs !== null) {
      rec.probs = options.map((_, k) => d.probs![pos === null ? k : pos[k]!]);
      rec.leakage = d.leakage;
      ctx.counts.soft++;
      return rec;
    }
  } else ctx.counts.noTop++;
  // Hard: the scorer's answer is in content positions (Inspect un-shuffles before scoring).
  let answer: Json = score?.answer;
  if (answer === undefined) {
    const completion = sample.output?.completion ?? contentText(sample.output?.choices?.[0]?.message?.content);
    const m = /^ANSWER\s*:\s*([A-Za-z\d ,]+)/im.exec(String(completion ?? ''));
    answer = m ? m[1]!.trim().toUpperCase() : '';
  }
  const picked = letterIndices(answer, n);
  // An empty answer, or several letters for a single-answer item, is unparsable: missing, not wrong.
  rec.choice = picked !== null && picked.length === 1 ? picked[0]! : null;
  if (rec.choice === null) ctx.counts.missing++;
  else ctx.counts.hard++;
  return rec;
}

/** Scorer to read answers from: `choice`, else the only scorer whose answers look like letters. */
function pickScorer(header: Json, firstSample: Json): string | undefined {
  const names: string[] = Array.isArray(header?.eval?.scorers) ? header.eval.scorers.map((s: Json) => String(s?.name)) : [];
  const inSample = Object.keys(firstSample?.scores ?? {});
  const all = [...new Set([...names, ...inSample])];
  if (all.includes('choice')) return 'choice';
  const letterish = all.filter((s) => typeof firstSample?.scores?.[s]?.answer === 'string');
  return letterish.length === 1 ? letterish[0] : undefined;
}

function logContext(file: string, header: Json, options: ReadOptions, report: ReadReport): LogContext {
  const ev = header?.eval;
  if (ev === undefined || typeof ev !== 'object') throw new LlmNrmError('FORMAT', 'no "eval" header: not an Inspect log', { file });
  const task = String(ev.task_registry_name ?? ev.task ?? 'unknown');
  return {
    file,
    report,
    model: options.model ?? String(ev.model ?? 'unknown'),
    // `inspect_evals/arc_easy` -> `arc_easy`, so item ids read `<task>/<sample id>`.
    benchmark: task.split('/').pop()!,
    counts: { hard: 0, soft: 0, missing: 0, shuffled: 0, multiTarget: 0, epochs: 0, noChoices: 0, samples: 0, noTop: 0 },
  };
}

async function* samplesToRecords(samples: AsyncIterable<Json> | Iterable<Json>, header: Json, ctx: LogContext): AsyncGenerator<ResponseRecord> {
  const skips: { file: string; reason: string }[] = [];
  let scorer: string | undefined;
  let first = true;
  for await (const sample of samples) {
    if (first) scorer = pickScorer(header, sample);
    first = false;
    ctx.counts.samples++;
    let r: ResponseRecord | string;
    try {
      r = sampleRecord(sample, ctx, scorer);
    } catch (e) {
      if (!(e instanceof LlmNrmError)) throw e;
      r = `sample ${describeValue(sample?.id)}: ${e.message}`;
    }
    if (typeof r === 'string') {
      skips.push({ file: ctx.file, reason: r });
      continue;
    }
    ctx.report.records++;
    yield r;
  }
  const c = ctx.counts;
  if (c.samples > 0 && c.noChoices === c.samples) {
    // One entry for the whole log rather than one per sample.
    ctx.report.skipped.push({ file: ctx.file, reason: `not a multiple-choice log: no sample has choices (task ${ctx.benchmark}, ${c.samples} samples)` });
  } else ctx.report.skipped.push(...skips);
  if (c.samples === 0) {
    ctx.report.skipped.push({ file: ctx.file, reason: 'log has no samples' });
    return;
  }
  const records = c.hard + c.soft + c.missing;
  if (records === 0) return;
  const parts = [
    `inspect ${basename(ctx.file)}: task ${ctx.benchmark}, model ${ctx.model}, status ${header?.status ?? 'unknown'}, ${records} records (${c.hard} hard, ${c.soft} soft, ${c.missing} missing answers), answers from scorer ${scorer ?? '(none: parsed from the completion)'}`,
  ];
  if (c.soft === 0 && c.noTop > 0) parts.push('no logprobs in the output: hard answers');
  if (c.shuffled > 0) parts.push(`${c.shuffled} samples shown in shuffled order (position recovered by option text)`);
  if (c.epochs > 0) parts.push(`${c.epochs} responses from epochs > 1 kept as replicate records of the same model and item`);
  if (c.multiTarget > 0) parts.push(`${c.multiTarget} multiple-correct targets keyed to their first letter`);
  if (header?.status !== undefined && header.status !== 'success') parts.push(`log status ${header.status}: samples may be partial`);
  ctx.report.notes.push(parts.join('; '));
}

async function* readEvalArchive(file: string, options: ReadOptions, report: ReadReport): AsyncGenerator<ResponseRecord> {
  const zip = await openZip(file);
  try {
    const member = async (name: string): Promise<Json> => {
      const e = zip.entries.find((x) => x.name === name);
      return e === undefined ? undefined : parseJsonText((await zip.read(e)).toString('utf8'), `${file}!${name}`);
    };
    // While a run is in progress or after a crash, header.json is missing: the journal has the eval spec.
    const header = (await member('header.json')) ?? (await member('_journal/start.json'));
    const ctx = logContext(file, header, options, report);
    const sampleEntries = zip.entries.filter((e) => /^samples\/.+\.json$/.test(e.name));
    let samples: AsyncIterable<Json> | Iterable<Json>;
    if (sampleEntries.length > 0) {
      samples = (async function* () {
        for (const e of sampleEntries) yield parseJsonText((await zip.read(e)).toString('utf8'), `${file}!${e.name}`);
      })();
    } else {
      // Logs written without samples keep summaries; newer ones carry `choices` there.
      const summaries = await member('summaries.json');
      samples = Array.isArray(summaries) ? summaries : [];
      if (Array.isArray(summaries)) report.notes.push(`inspect ${basename(file)}: no sample members; read summaries.json`);
    }
    yield* samplesToRecords(samples, header, ctx);
  } finally {
    await zip.close();
  }
}

async function* readJsonLog(file: string, options: ReadOptions, report: ReadReport): AsyncGenerator<ResponseRecord> {
  const doc: Json = await readJsonDocument(file);
  if (doc === null || typeof doc !== 'object' || doc.eval === undefined) {
    throw new LlmNrmError('FORMAT', 'no "eval" field: not an Inspect log', { file });
  }
  const ctx = logContext(file, doc, options, report);
  if (!Array.isArray(doc.samples)) {
    report.skipped.push({ file, reason: 'log has no samples (written with log_samples off?)' });
    return;
  }
  yield* samplesToRecords(doc.samples, doc, ctx);
}

async function isZip(file: string): Promise<boolean> {
  const head = Buffer.alloc(4);
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read: ${(e as Error).message}`, { cause: e, file });
  }
  try {
    await fh.read(head, 0, 4, 0);
  } finally {
    await fh.close();
  }
  return head.readUInt32LE(0) === 0x04034b50;
}

async function* readLogFile(file: string, options: ReadOptions, report: ReadReport): AsyncGenerator<ResponseRecord> {
  yield* (await isZip(file)) ? readEvalArchive(file, options, report) : readJsonLog(file, options, report);
}

const LOG_NAME = /\.(eval|json|json\.gz)$/;

/**
 * Read Inspect AI logs: a `.eval` archive, a legacy `.json` log (gzipped or not), or a folder of
 * them. Samples scored by `choice` give hard answers (`choice`; an empty answer is `null`); samples
 * with logprobs in their output give soft answers with `leakage`. Solver-shuffled samples get
 * `position` recovered by option text. Each epoch is its own record. Non-MCQ logs, bad samples and
 * broken files in a folder are recorded in `options.report.skipped`.
 */
export async function* readInspect(path: string, options: ReadOptions = {}): AsyncGenerator<ResponseRecord> {
  const report = options.report ?? newReport();
  if (!(await isDirectory(path))) {
    yield* readLogFile(path, options, report);
    return;
  }
  const files = await listFiles(path, (n) => LOG_NAME.test(n));
  if (files.length === 0) report.skipped.push({ file: path, reason: 'no .eval or .json logs' });
  for (const f of files) yield* guardUnit(f, report, readLogFile(f, options, report));
}
