// HELM run folders -> tidy response records. Spec: shared/docs/formats/helm-openai-inspect.md, part 1.
// The JSON documents of a run folder (scenario_state.json, run_spec.json, display_*.json,
// instances.json) are single documents written per run, so they are read whole; a folder of runs is
// read one run at a time.
import { access } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { optionDistributionFromTopLogprobs } from '../extract/optionDistributionFromTopLogprobs.js';
import { softmaxOptionLogprobs } from '../extract/softmaxOptionLogprobs.js';
import { guardUnit } from '../internal/batch.js';
import { isDirectory, listFiles, readJsonDocument } from '../internal/jsonFiles.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';

// `any`: HELM JSON is walked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = any;

const RUN_FILES = ['run_spec.json', 'scenario_state.json', 'display_predictions.json'];
const JOINT = new Set(['multiple_choice_joint', 'multiple_choice_joint_multimodal', 'multiple_choice_joint_chain_of_thought']);
const SEPARATE = new Set(['multiple_choice_separate_original', 'multiple_choice_separate_calibrated']);
// Run-name arguments that describe how or by whom an item was answered, not which item it is.
const NON_ITEM_ARGS = new Set(['method', 'model', 'model_deployment', 'data_augmentation']);

/** `<dir>/<name>` or its gzipped twin `<name>.gz`, whichever exists. */
async function runFile(dir: string, name: string): Promise<string | undefined> {
  for (const p of [join(dir, name), join(dir, `${name}.gz`)]) {
    try {
      await access(p);
      return p;
    } catch {
      // try the next spelling
    }
  }
  return undefined;
}

async function readOptional(dir: string, name: string): Promise<{ path: string; doc: Json } | undefined> {
  const path = await runFile(dir, name);
  return path === undefined ? undefined : { path, doc: await readJsonDocument(path) };
}

/**
 * Benchmark id from the run name: the scenario and its arguments without method/model/augmentation
 * (`mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2` -> `mmlu:subject=philosophy`),
 * so MMLU subjects stay apart while the same items under two methods or models share ids.
 */
export function helmBenchmark(runName: string): string {
  const colon = runName.indexOf(':');
  if (colon < 0) return runName;
  const args = runName
    .slice(colon + 1)
    .split(',')
    .filter((a) => a !== '' && !NON_ITEM_ARGS.has(a.split('=')[0]!));
  return args.length > 0 ? `${runName.slice(0, colon)}:${args.join(',')}` : runName.slice(0, colon);
}

/** Option labels of a joint run: `reference_prefix_characters`, else letters from the prefix's first character. */
function jointLabels(adapterSpec: Json, n: number): string[] {
  const given = adapterSpec?.reference_prefix_characters;
  if (Array.isArray(given) && given.length >= n) return given.slice(0, n).map(String);
  const prefix = typeof adapterSpec?.reference_prefix === 'string' ? adapterSpec.reference_prefix.trim() : '';
  const first = prefix.length > 0 ? prefix.charCodeAt(0) : 65;
  return Array.from({ length: n }, (_, i) => String.fromCharCode(first + i));
}

/**
 * The option a joint completion names: its letter (stripped of spaces, `(`, `)` and `.`) by position,
 * else the option text it maps to, else an exact option text (chat models that echo the answer);
 * null when it names none (an invalid answer, counted as missing).
 */
export function helmJointChoice(
  text: string,
  labels: readonly string[],
  optionTexts: readonly string[],
  outputMapping?: Record<string, string>,
): number | null {
  let t = text.trim();
  if (t.startsWith('(')) t = t.slice(1);
  while (t.endsWith('.') || t.endsWith(')')) t = t.slice(0, -1);
  t = t.trim();
  // By letter position, not mapped text: option texts can repeat.
  const byLetter = labels.indexOf(t);
  if (byLetter >= 0) return byLetter;
  const mapped = outputMapping?.[t];
  if (mapped !== undefined) {
    const i = optionTexts.indexOf(mapped);
    if (i >= 0) return i;
  }
  const whole = optionTexts.indexOf(text.trim());
  return whole >= 0 ? whole : null;
}

/** Sum of the continuation tokens' logprobs of a separate_* request (eq. in the spec, part 1.3). */
function continuationLogprob(rs: Json): { logprob: number; tokens: number } | null {
  const tokens = rs?.result?.completions?.[0]?.tokens;
  if (rs?.result?.success === false || !Array.isArray(tokens)) return null;
  const skip = Number(rs.num_conditioning_tokens ?? 0);
  let answer = tokens.slice(skip);
  if (skip > 0 && answer.length > 0 && answer[0]?.text === '') answer = answer.slice(1);
  let sum = 0;
  for (const t of answer) {
    if (typeof t?.logprob !== 'number') return null;
    sum += t.logprob;
  }
  return { logprob: sum, tokens: answer.length };
}

interface RunContext {
  dir: string;
  file: string;
  runName: string;
  benchmark: string;
  model: string;
  method: string;
  adapterSpec: Json;
  report: ReadReport;
  options: ReadOptions;
  counts: { hard: number; soft: number; missing: number; multiLabel: number; trials: number; perturbed: Set<string>; noTop: number };
}

function instanceItem(ctx: RunContext, inst: Json): string {
  const pert = inst?.perturbation?.name;
  // Perturbed copies reuse the instance id: keep them as distinct items (the identity perturbation is the original).
  if (typeof pert === 'string' && pert !== '' && pert !== 'identity') {
    ctx.counts.perturbed.add(pert);
    return `${ctx.benchmark}/${inst.id}/${pert}`;
  }
  return `${ctx.benchmark}/${inst.id}`;
}

/** Options and key of an instance, or a skip reason. */
function instanceOptions(inst: Json): { options: string[]; key: number; multi: boolean } | string {
  const refs = inst?.references;
  if (!Array.isArray(refs) || refs.length < 2) return `instance ${inst?.id}: fewer than 2 references`;
  const options = refs.map((r: Json) => String(r?.output?.text ?? ''));
  if (options.every((o: string) => o === '[redacted]')) return `instance ${inst?.id}: references are redacted`;
  const correct: number[] = [];
  refs.forEach((r: Json, i: number) => {
    if (Array.isArray(r?.tags) && r.tags.includes('correct')) correct.push(i);
  });
  if (correct.length === 0) return `instance ${inst?.id}: no reference tagged correct`;
  return { options, key: correct[0]!, multi: correct.length > 1 };
}

function baseRecord(ctx: RunContext, inst: Json, o: { options: string[]; key: number; multi: boolean }): ResponseRecord {
  if (o.multi) ctx.counts.multiLabel++;
  const rec: ResponseRecord = { model: ctx.model, item: instanceItem(ctx, inst), benchmark: ctx.benchmark, key: o.key, options: o.options };
  rec.source = { harness: 'helm', task: ctx.benchmark, docId: String(inst?.id ?? '') };
  if (typeof inst?.split === 'string') rec.source.split = inst.split;
  return rec;
}

/** Joint prompt: the request prompt, scored by the option letter that follows it (" A"). */
function jointContent(rec: ResponseRecord, rs: Json, labels: readonly string[]): void {
  const prompt = rs?.request?.prompt;
  if (typeof prompt !== 'string') return;
  rec.prompt = prompt;
  rec.continuations = labels.map((l) => ` ${l}`);
}

/**
 * Separate prompts: one request per reference whose prompt ends with that reference's text. The
 * shared head is the prompt, each tail the scored continuation; unset when they do not split so.
 */
function separateContent(rec: ResponseRecord, byRef: Map<string, Json>, options: readonly string[]): void {
  const prompts = options.map((_, k) => byRef.get(`${k}\u0000original`)?.request?.prompt);
  if (!prompts.every((p): p is string => typeof p === 'string')) return;
  const heads = prompts.map((p, k) => (p.endsWith(options[k]!) ? p.slice(0, p.length - options[k]!.length).replace(/ $/, '') : null));
  const head = heads[0];
  if (head === null || head === undefined || !heads.every((h) => h === head)) return;
  rec.prompt = head;
  rec.continuations = prompts.map((p) => p.slice(head.length));
}

function* jointRecords(ctx: RunContext, states: Json[]): Generator<ResponseRecord> {
  const cot = ctx.method === 'multiple_choice_joint_chain_of_thought';
  for (const rs of states) {
    const inst = rs?.instance;
    const o = instanceOptions(inst);
    if (typeof o === 'string') {
      ctx.report.skipped.push({ file: ctx.file, reason: o });
      continue;
    }
    if (Number(rs.train_trial_index ?? 0) > 0) ctx.counts.trials++;
    const rec = baseRecord(ctx, inst, o);
    const labels = jointLabels(ctx.adapterSpec, o.options.length);
    jointContent(rec, rs, labels);
    const completion = rs?.result?.completions?.[0];
    if (rs?.result?.success === false || completion === undefined) {
      rec.choice = null;
      ctx.counts.missing++;
      yield rec;
      continue;
    }
    // Pre-v0.5 runs: the first generated token's top_logprobs give a partial distribution over letters.
    const top = completion.tokens?.[0]?.top_logprobs;
    if (!cot && top !== null && typeof top === 'object' && Object.keys(top).length > 0) {
      let d;
      try {
        d = optionDistributionFromTopLogprobs(top, o.options.length, { labels });
      } catch (e) {
        if (!(e instanceof LlmNrmError)) throw e;
        ctx.report.skipped.push({ file: ctx.file, reason: `instance ${inst?.id}: ${e.message}` });
        continue;
      }
      if (d.probs !== null) {
        rec.probs = d.probs;
        rec.leakage = d.leakage;
        ctx.counts.soft++;
        yield rec;
        continue;
      }
    } else {
      ctx.counts.noTop++;
    }
    let text = String(completion.text ?? '');
    if (cot) {
      // The metric extracts the letter from a long completion; take the last "answer is (X)".
      const m = [...text.matchAll(/answer is \(?([A-Za-z0-9])\)?/gi)].pop();
      text = m ? m[1]! : text;
    }
    rec.choice = helmJointChoice(text, labels, o.options, rs.output_mapping);
    if (rec.choice === null) ctx.counts.missing++;
    else ctx.counts.hard++;
    yield rec;
  }
}

function* separateRecords(ctx: RunContext, states: Json[]): Generator<ResponseRecord> {
  const calibrated = ctx.method === 'multiple_choice_separate_calibrated';
  // One request per reference (x2 if calibrated): group by (instance, perturbation, trial) in first-seen order.
  const groups = new Map<string, { inst: Json; trial: number; byRef: Map<string, Json> }>();
  for (const rs of states) {
    const inst = rs?.instance;
    const trial = Number(rs?.train_trial_index ?? 0);
    const g = `${inst?.id}\u0000${inst?.perturbation?.name ?? ''}\u0000${trial}`;
    let group = groups.get(g);
    if (group === undefined) groups.set(g, (group = { inst, trial, byRef: new Map() }));
    group.byRef.set(`${rs?.reference_index}\u0000${rs?.request_mode ?? 'original'}`, rs);
  }
  const mode = ctx.options.score ?? 'raw';
  for (const { inst, trial, byRef } of groups.values()) {
    const o = instanceOptions(inst);
    if (typeof o === 'string') {
      ctx.report.skipped.push({ file: ctx.file, reason: o });
      continue;
    }
    const n = o.options.length;
    const want = calibrated ? 2 * n : n;
    if (byRef.size < want) {
      ctx.report.skipped.push({ file: ctx.file, reason: `instance ${inst?.id} trial ${trial}: ${byRef.size} of ${want} option requests` });
      continue;
    }
    if (trial > 0) ctx.counts.trials++;
    const rec = baseRecord(ctx, inst, o);
    separateContent(rec, byRef, o.options);
    const scores: number[] = [];
    for (let k = 0; k < n && scores.length === k; k++) {
      const orig = continuationLogprob(byRef.get(`${k}\u0000original`));
      const cal = calibrated ? continuationLogprob(byRef.get(`${k}\u0000calibration`)) : { logprob: 0, tokens: 0 };
      if (orig === null || cal === null) break;
      let s = orig.logprob - cal.logprob;
      if (mode === 'chars') s /= Math.max(1, o.options[k]!.length);
      else if (mode === 'bytes') s /= Math.max(1, Buffer.byteLength(o.options[k]!, 'utf8'));
      scores.push(s);
    }
    if (scores.length < n) {
      rec.choice = null;
      ctx.counts.missing++;
    } else {
      rec.probs = softmaxOptionLogprobs(scores);
      ctx.counts.soft++;
    }
    yield rec;
  }
}

/** Fallback without scenario_state.json: hard answers from display_predictions + instances. */
function* displayRecords(ctx: RunContext, predictions: Json[], instances: Json[]): Generator<ResponseRecord> {
  const byId = new Map<string, Json>();
  for (const inst of instances) byId.set(`${inst?.id}\u0000${inst?.perturbation?.name ?? ''}`, inst);
  const separate = SEPARATE.has(ctx.method);
  for (const p of predictions) {
    if (separate && p?.request_mode === 'calibration') continue;
    const inst = byId.get(`${p?.instance_id}\u0000${p?.perturbation?.name ?? ''}`);
    if (inst === undefined) {
      ctx.report.skipped.push({ file: ctx.file, reason: `prediction for instance ${p?.instance_id}: not in instances.json` });
      continue;
    }
    const o = instanceOptions(inst);
    if (typeof o === 'string') {
      ctx.report.skipped.push({ file: ctx.file, reason: o });
      continue;
    }
    if (Number(p.train_trial_index ?? 0) > 0) ctx.counts.trials++;
    const rec = baseRecord(ctx, inst, o);
    if (separate) {
      const r = p.reference_index;
      rec.choice = Number.isInteger(r) && r >= 0 && r < o.options.length ? r : null;
    } else {
      const labels = jointLabels(ctx.adapterSpec, o.options.length);
      const mapped = typeof p.mapped_output === 'string' ? o.options.indexOf(p.mapped_output) : -1;
      rec.choice = mapped >= 0 ? mapped : helmJointChoice(String(p.predicted_text ?? ''), labels, o.options);
    }
    if (rec.choice === null) ctx.counts.missing++;
    else ctx.counts.hard++;
    yield rec;
  }
}

async function* readRun(dir: string, options: ReadOptions, report: ReadReport): AsyncGenerator<ResponseRecord> {
  const runSpec = await readOptional(dir, 'run_spec.json');
  const state = await readOptional(dir, 'scenario_state.json');
  const adapterSpec = runSpec?.doc?.adapter_spec ?? state?.doc?.adapter_spec;
  const file = state?.path ?? runSpec?.path ?? dir;
  if (adapterSpec === undefined || typeof adapterSpec !== 'object') {
    throw new LlmNrmError('FORMAT', 'no adapter_spec in run_spec.json or scenario_state.json: not a HELM run', { file });
  }
  const method = String(adapterSpec.method ?? '');
  if (!JOINT.has(method) && !SEPARATE.has(method)) {
    report.skipped.push({ file: runSpec?.path ?? file, reason: `not a multiple-choice run (method ${method || 'missing'})` });
    return;
  }
  const runName = String(runSpec?.doc?.name ?? basename(dir));
  const states: Json[] | undefined = Array.isArray(state?.doc?.request_states) ? state.doc.request_states : undefined;
  const model = options.model ?? String(adapterSpec.model ?? adapterSpec.model_deployment ?? states?.[0]?.request?.model ?? 'unknown');
  const ctx: RunContext = {
    dir,
    file,
    runName,
    benchmark: helmBenchmark(runName),
    model,
    method,
    adapterSpec,
    report,
    options,
    counts: { hard: 0, soft: 0, missing: 0, multiLabel: 0, trials: 0, perturbed: new Set(), noTop: 0 },
  };
  const redacted = states?.every((rs) => instanceOptions(rs?.instance) === `instance ${rs?.instance?.id}: references are redacted`);
  let source: Generator<ResponseRecord>;
  if (states !== undefined && states.length > 0 && !redacted) {
    source = JOINT.has(method) ? jointRecords(ctx, states) : separateRecords(ctx, states);
  } else {
    const preds = await readOptional(dir, 'display_predictions.json');
    const insts = await readOptional(dir, 'instances.json');
    if (!Array.isArray(preds?.doc) || !Array.isArray(insts?.doc)) {
      const why = state === undefined ? 'no scenario_state.json' : redacted ? 'scenario_state.json is redacted' : 'scenario_state.json has no request_states';
      report.skipped.push({ file, reason: `${why}, and no display_predictions.json + instances.json to fall back on` });
      return;
    }
    ctx.file = preds!.path;
    report.notes.push(
      `helm ${runName}: ${state === undefined ? 'no scenario_state.json' : 'scenario_state.json unusable'}; hard answers from display_predictions.json + instances.json`,
    );
    source = displayRecords(ctx, preds!.doc, insts!.doc);
  }
  for (const rec of source) {
    report.records++;
    yield rec;
  }
  const c = ctx.counts;
  const parts = [
    `helm ${runName}: method ${method}, model ${model}, ${c.hard + c.soft + c.missing} records (${c.hard} hard, ${c.soft} soft, ${c.missing} missing answers)`,
  ];
  if (JOINT.has(method) && c.soft === 0 && c.noTop > 0) parts.push('no top_logprobs (HELM >= 0.5): hard answers from output_mapping');
  if (SEPARATE.has(method))
    parts.push(`soft = softmax of per-option continuation logprobs (${options.score ?? 'raw'}${method.endsWith('calibrated') ? ', minus calibration' : ''})`);
  if (c.trials > 0) parts.push(`${c.trials} responses from train trials > 0 kept as replicate records of the same model and item`);
  if (c.perturbed.size > 0) parts.push(`perturbed instances kept as separate items <benchmark>/<id>/<perturbation> (${[...c.perturbed].sort().join(', ')})`);
  if (c.multiLabel > 0) parts.push(`${c.multiLabel} multi-label instances keyed to their first correct reference`);
  report.notes.push(parts.join('; '));
}

/** Run folders under `root` (a folder holding one of the run files), sorted. */
async function runFolders(root: string): Promise<string[]> {
  const accept = (name: string) => RUN_FILES.some((f) => name === f || name === `${f}.gz`);
  const dirs = new Set((await listFiles(root, accept)).map((f) => dirname(f)));
  return [...dirs].sort();
}

/**
 * Read HELM output: a run folder (`scenario_state.json`, `run_spec.json`, with or without the
 * `display_*` files; any of them may be gzipped as `<name>.gz`), a folder of run folders, or a path to
 * one of those files. Joint runs give hard answers through `output_mapping` (soft with `leakage` when
 * pre-v0.5 `top_logprobs` exist); separate runs give soft answers from per-option logprobs. Non-MCQ
 * runs and unusable instances are recorded in `options.report.skipped`; a broken run in a folder of
 * runs is recorded there too and the other runs are still read.
 */
export async function* readHelm(path: string, options: ReadOptions = {}): AsyncGenerator<ResponseRecord> {
  const report = options.report ?? newReport();
  if (!(await isDirectory(path))) {
    const name = basename(path).replace(/\.gz$/, '');
    if (![...RUN_FILES, 'instances.json', 'display_requests.json'].includes(name)) {
      throw new LlmNrmError('FORMAT', `not a HELM run file (expected ${RUN_FILES.join(', ')} or a run folder)`, { file: path });
    }
    yield* readRun(dirname(path), options, report);
    return;
  }
  const own = await Promise.all(RUN_FILES.map((f) => runFile(path, f)));
  if (own.some((p) => p !== undefined)) {
    yield* readRun(path, options, report);
    return;
  }
  const runs = await runFolders(path);
  if (runs.length === 0) report.skipped.push({ file: path, reason: 'no HELM run folders (run_spec.json / scenario_state.json) found' });
  for (const dir of runs) yield* guardUnit(dir, report, readRun(dir, options, report));
}
