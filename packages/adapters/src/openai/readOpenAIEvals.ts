// OpenAI `evals` record logs (oaieval LocalRecorder JSON lines) -> tidy response records.
// Spec: shared/docs/formats/helm-openai-inspect.md, part 2. The log is streamed line by line; a sample
// is emitted as soon as both its `sampling` and first `match` event have been seen (events come in
// flushed batches, not grouped by sample), so memory holds only samples still waiting for a partner.
import { basename } from 'node:path';
import { describeValue, LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { guardUnit } from '../internal/batch.js';
import { isDirectory, listFiles, parseJsonText, readLines } from '../internal/jsonFiles.js';
import { displayLetter, parseOptionBlock } from '../internal/parseOptionBlock.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';

// `any`: log JSON is walked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = any;

interface Spec {
  model: string;
  benchmark: string;
  /** `make_abc` shuffles options per sample (elsuite multiple_choice): recover positions. */
  shuffled: boolean;
}

interface Pending {
  sampling?: { data: Json; line: number };
  match?: { data: Json; line: number };
}

/** The prompt's text: a string, or a chat list whose message contents are joined. */
function promptText(prompt: Json): string | null {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) {
    return prompt
      .map((m: Json) => (typeof m?.content === 'string' ? m.content : Array.isArray(m?.content) ? m.content.map((c: Json) => c?.text ?? '').join('') : ''))
      .join('\n');
  }
  return null;
}

/** The single answer a match field holds: a string, the first of a list, or null. */
function firstAnswer(v: Json): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0 && typeof v[0] === 'string') return v[0];
  return null;
}

/** Displayed index of an answer: its letter (`B`, ` B`, `B)`, `(B)`), else an exact option text. */
function displayedIndex(answer: string, shown: readonly string[]): number | null {
  const t = answer
    .trim()
    .replace(/^\(/, '')
    .replace(/[).:]$/, '')
    .trim();
  for (let d = 0; d < shown.length; d++) if (t === displayLetter(d)) return d;
  const byText = shown.indexOf(answer.trim());
  return byText >= 0 ? byText : null;
}

/** Item id `<base_eval>/<split>.<idx>` from sample_id `<base_eval>.<split>.<idx>`. */
function itemId(spec: Spec, sampleId: string): string {
  const prefix = `${spec.benchmark}.`;
  return `${spec.benchmark}/${sampleId.startsWith(prefix) ? sampleId.slice(prefix.length) : sampleId}`;
}

function toRecord(spec: Spec, sampleId: string, p: Pending): ResponseRecord | string {
  if (p.sampling === undefined) return `sample ${sampleId}: no sampling event (the options are unknown)`;
  const prompt = promptText(p.sampling.data?.prompt);
  // LocalRecorder's hidden_data_fields can strip the prompt.
  if (prompt === null) return `sample ${sampleId}: no prompt in its sampling event`;
  const shown = parseOptionBlock(prompt);
  if (shown === null) return `sample ${sampleId}: no "A) ... B) ..." options in the prompt (not multiple choice)`;
  const expected = firstAnswer(p.match!.data?.expected);
  const keyShown = expected === null ? null : displayedIndex(expected, shown);
  if (keyShown === null) return `sample ${sampleId}: expected answer is not an option: ${describeValue(p.match!.data?.expected)}`;
  const picked = firstAnswer(p.match!.data?.picked);
  const choiceShown = picked === null ? null : displayedIndex(picked, shown);
  const rec: ResponseRecord = { model: spec.model, item: itemId(spec, sampleId), benchmark: spec.benchmark, key: keyShown };
  // The prompt is what was sampled; the Match eval reads the letter, so each option's continuation
  // is the letter it was shown under.
  rec.prompt = prompt;
  rec.source = { harness: 'openai-evals', task: spec.benchmark, docId: sampleId };
  if (!spec.shuffled) {
    rec.options = shown;
    rec.choice = choiceShown;
    rec.continuations = shown.map((_, d) => displayLetter(d));
    return rec;
  }
  // The dataset order is not logged; a shuffle-free content order is the options sorted by text
  // (code-unit order, locale-independent), so every seed and run of the item lines up.
  const order = shown.map((_, d) => d).sort((a, b) => (shown[a]! < shown[b]! ? -1 : shown[a]! > shown[b]! ? 1 : a - b));
  const contentOf = new Array<number>(shown.length);
  order.forEach((d, k) => (contentOf[d] = k));
  rec.options = order.map((d) => shown[d]!);
  rec.key = contentOf[keyShown]!;
  rec.choice = choiceShown === null ? null : contentOf[choiceShown]!;
  rec.position = order;
  rec.continuations = order.map((d) => displayLetter(d));
  return rec;
}

function readSpec(spec: Json, options: ReadOptions): Spec {
  const fns = Array.isArray(spec?.completion_fns) ? spec.completion_fns.map(String) : [];
  const cls = String(spec?.run_config?.eval_spec?.cls ?? '');
  return {
    model: options.model ?? (fns.length > 0 ? fns.join('+') : 'unknown'),
    benchmark: String(spec?.base_eval ?? spec?.eval_name ?? 'unknown'),
    shuffled: /multiple_choice/.test(cls),
  };
}

async function* readLog(file: string, options: ReadOptions, report: ReadReport): AsyncGenerator<ResponseRecord> {
  let spec: Spec | undefined;
  let finalReport: Json;
  let events = 0;
  let extraMatches = 0;
  let missing = 0;
  let emitted = 0;
  const pending = new Map<string, Pending>();
  const done = new Set<string>();
  const ready: [string, Pending][] = [];
  // Bad lines before any log record are held back: ten of them mean this is not a log at all
  // (say, a pretty-printed JSON file), which is one FORMAT error rather than a skip per line.
  let early: { file: string; line: number; reason: string }[] | null = [];
  const bad = (line: number, reason: string) => {
    if (early === null) report.skipped.push({ file, line, reason });
    else if (early.push({ file, line, reason }) >= 10) {
      throw new LlmNrmError('FORMAT', 'not an OpenAI evals record log: the first 10 lines are not log records', { file });
    }
  };
  const started = () => {
    if (early !== null) report.skipped.push(...early);
    early = null;
  };

  const emit = (sampleId: string, p: Pending): ResponseRecord | undefined => {
    const r = toRecord(spec!, sampleId, p);
    if (typeof r === 'string') {
      report.skipped.push({ file, line: p.match!.line, reason: r });
      return undefined;
    }
    if (r.choice === null) missing++;
    emitted++;
    report.records++;
    return r;
  };

  for await (const { line, text } of readLines(file)) {
    if (text.trim() === '') continue;
    let obj: Json;
    try {
      obj = parseJsonText(text, file, line);
    } catch {
      // A truncated last line is common when a run crashed mid-flush.
      bad(line, `invalid JSON line: ${text.slice(0, 40)}${text.length > 40 ? '...' : ''}`);
      continue;
    }
    if (obj?.spec !== undefined) {
      started();
      spec = readSpec(obj.spec, options);
      continue;
    }
    if (obj?.final_report !== undefined) {
      started();
      finalReport = obj.final_report;
      continue;
    }
    const type = obj?.type;
    const sampleId = obj?.sample_id;
    if (typeof type !== 'string' || typeof sampleId !== 'string') {
      bad(line, 'not a spec, final_report or event line');
      continue;
    }
    started();
    events++;
    if (type !== 'sampling' && type !== 'match') continue;
    if (done.has(sampleId)) {
      if (type === 'match') extraMatches++;
      continue;
    }
    let p = pending.get(sampleId);
    if (p === undefined) pending.set(sampleId, (p = {}));
    if (type === 'match') {
      if (p.match !== undefined) extraMatches++;
      else p.match = { data: obj.data, line };
    } else if (p.sampling === undefined || parseOptionBlock(promptText(p.sampling.data?.prompt) ?? '') === null) {
      // Multi-turn samples log several sampling events: keep the first that shows the options.
      p.sampling = { data: obj.data, line };
    }
    if (p.match !== undefined && p.sampling !== undefined) {
      pending.delete(sampleId);
      done.add(sampleId);
      ready.push([sampleId, p]);
    }
    // Events can precede the spec line only in a damaged log; hold them until the spec is known.
    while (spec !== undefined && ready.length > 0) {
      const [id, q] = ready.shift()!;
      const r = emit(id, q);
      if (r !== undefined) yield r;
    }
  }

  started();
  if (spec === undefined) {
    report.skipped.push({ file, reason: 'no "spec" line: not an OpenAI evals record log' });
    return;
  }
  for (const [id, q] of ready) {
    const r = emit(id, q);
    if (r !== undefined) yield r;
  }
  // Leftovers: a match without the sampling event that shows the options, or a sample never matched.
  for (const [id, p] of pending) {
    if (p.match === undefined) {
      report.skipped.push({ file, line: p.sampling!.line, reason: `sample ${id}: no match event` });
      continue;
    }
    const r = emit(id, p);
    if (r !== undefined) yield r;
  }
  const fr = finalReport === undefined ? 'no final_report (run crashed or still running)' : 'final_report present';
  if (events === 0) {
    report.skipped.push({ file, reason: `log has no sampling/match events (spec${finalReport !== undefined ? ' + final_report' : ''} only)` });
    return;
  }
  const parts = [
    `openai-evals ${basename(file)}: eval ${spec.benchmark}, model ${spec.model}, ${emitted} records (${missing} with picked null = missing); ${fr}`,
  ];
  if (spec.shuffled) parts.push('options shuffled per sample (make_abc): content order = option texts sorted, position = displayed order');
  if (extraMatches > 0) parts.push(`${extraMatches} further match events per sample ignored (first kept)`);
  report.notes.push(parts.join('; '));
}

const LOG_NAME = /\.(jsonl|log)(\.gz)?$/;

/**
 * Read OpenAI evals record logs (a `.jsonl`/`.log` file, gzipped or not, or a folder of them).
 * MCQ samples (a `sampling` prompt listing `A) ...` options and a `match` event) give hard answers:
 * `picked: null` is `choice: null` (missing, never wrong). Logs with no events, non-MCQ samples and
 * bad lines are recorded in `options.report.skipped` with file and line.
 */
export async function* readOpenAIEvals(path: string, options: ReadOptions = {}): AsyncGenerator<ResponseRecord> {
  const report = options.report ?? newReport();
  if (!(await isDirectory(path))) {
    yield* readLog(path, options, report);
    return;
  }
  const files = await listFiles(path, (n) => LOG_NAME.test(n));
  if (files.length === 0) report.skipped.push({ file: path, reason: 'no .jsonl or .log files' });
  for (const f of files) yield* guardUnit(f, report, readLog(f, options, report));
}
