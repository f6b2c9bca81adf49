import { createHash } from 'node:crypto';
import { appendFile, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { writeFileAtomic } from '../atomic.js';
import { letterLabels } from './goldIndex.js';

export interface WriteLmEvalOptions {
  /** Run stamp: a Date, or lm-eval's `YYYY-MM-DDTHH-MM-SS.ffffff`. Default: now (UTC). */
  date?: Date | string;
  /** Task name for records without `benchmark`. Default 'llm_nrm'. */
  defaultTask?: string;
  /**
   * Write samples as an llm-nrm tiny task logs them: every sample in task `task`, its doc holding
   * the record's `item_id` (so the reader gives the original item ids back), and records with a
   * `prompt` and `continuations` requested as exactly those strings (with per-option `contexts`,
   * option i as the pair (contexts[i], continuations[i]), as a multiple-input task asks). Default: off.
   */
  tinyTask?: string;
}

export interface WriteLmEvalResult {
  /** Files written (samples then results), absolute or relative as `outDir` was given. */
  files: string[];
  records: number;
  /** Original item id -> the id the reader will give back (`<task>/<doc_id>`). */
  itemIds: Map<string, string>;
  /** What could not be represented (positions, leakage) and other remarks. */
  notes: string[];
}

/** lm-eval's run stamp: `datetime.now().isoformat().replace(":", "-")` (microseconds). */
export function lmEvalDateStamp(d: Date): string {
  return d.toISOString().replace(/Z$/, '').replace(/:/g, '-') + '000';
}

/** lm-eval's `model_name_sanitized`. */
export function sanitizeModelName(model: string): string {
  return model.replace(/["<>:/|\\?*[\]]+/g, '__');
}

/** Python `str(float)`, as v0.4.3+ writes every leaf. */
function pyFloat(x: number): string {
  if (x === -Infinity) return '-inf';
  if (x === Infinity) return 'inf';
  if (Number.isNaN(x)) return 'nan';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x).replace(/e([+-])(\d)$/, 'e$10$2');
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

interface Group {
  task: string;
  final: string;
  tmp: string;
  buffer: string[];
  chars: number;
  n: number;
  correct: number;
  soft: number;
}

const GROUP_FLUSH = 1 << 20;
const TOTAL_FLUSH = 32 << 20;

/** Log probabilities of a soft record (normalised), or null for a hard one. */
function logProbs(r: ResponseRecord): number[] | null {
  if (r.probs !== undefined) {
    const s = r.probs.reduce((a, b) => a + b, 0);
    if (!(s > 0)) throw new LlmNrmError('INVALID_PROBS', `probabilities sum to ${s} (item ${JSON.stringify(r.item)}, model ${JSON.stringify(r.model)})`);
    return r.probs.map((p) => Math.log(p / s));
  }
  if (r.logprobs !== undefined) {
    const m = Math.max(...r.logprobs);
    if (!(m > -Infinity)) throw new LlmNrmError('INVALID_PROBS', `every logprob is -Infinity (item ${JSON.stringify(r.item)})`);
    let s = 0;
    for (const v of r.logprobs) s += Math.exp(v - m);
    const lse = m + Math.log(s);
    return r.logprobs.map((v) => v - lse);
  }
  return null;
}

/**
 * Write tidy records as lm-evaluation-harness v0.4.3+ outputs: `<outDir>/<model_sanitized>/
 * samples_<task>_<date>.jsonl` (one per model and task; soft records as multiple_choice samples
 * whose per-option loglikelihoods are the log probabilities, hard records as generate_until
 * samples; every leaf a string, like real v0.4.3+ files) plus `results_<date>.json` per model.
 * Samples go to hidden temporary files first and are renamed into place only when all are
 * complete, so a failure leaves no partial output. `readLmEvalHarness` reads the result back.
 */
export async function writeLmEvalHarness(
  records: Iterable<ResponseRecord> | AsyncIterable<ResponseRecord>,
  outDir: string,
  options: WriteLmEvalOptions = {},
): Promise<WriteLmEvalResult> {
  const stamp = typeof options.date === 'string' ? options.date : lmEvalDateStamp(options.date ?? new Date());
  const defaultTask = options.defaultTask ?? 'llm_nrm';
  const byModel = new Map<string, Map<string, Group>>();
  const itemIds = new Map<string, string>();
  // doc ids are per task across models, so every model's sample of an item shares one id.
  const docIds = new Map<string, { ids: Map<string, number>; used: Set<number>; next: number }>();
  const notes: string[] = [];
  let positions = 0;
  let leakage = 0;
  let total = 0;
  let buffered = 0;
  const tmpTag = `${process.pid}.${Date.now().toString(36)}`;

  async function flush(g: Group): Promise<void> {
    if (g.buffer.length === 0) return;
    const text = g.buffer.join('');
    g.buffer = [];
    buffered -= g.chars;
    g.chars = 0;
    await appendFile(g.tmp, text);
  }
  const allGroups = (): Group[] => [...byModel.values()].flatMap((m) => [...m.values()]);

  try {
    for await (const r of records as AsyncIterable<ResponseRecord>) {
      const task = (options.tinyTask ?? r.benchmark ?? defaultTask).replace(/[^A-Za-z0-9_.-]+/g, '_');
      let groups = byModel.get(r.model);
      if (groups === undefined) {
        groups = new Map();
        byModel.set(r.model, groups);
      }
      let g = groups.get(task);
      if (g === undefined) {
        const dir = join(outDir, sanitizeModelName(r.model));
        const name = `samples_${task}_${stamp}.jsonl`;
        g = { task, final: join(dir, name), tmp: join(dir, `.${name}.${tmpTag}.tmp`), buffer: [], chars: 0, n: 0, correct: 0, soft: 0 };
        groups.set(task, g);
        // The temp file exists from the first record on, so the final rename never misses it.
        await mkdir(dir, { recursive: true });
        await appendFile(g.tmp, '');
      }
      let taskIds = docIds.get(task);
      if (taskIds === undefined) {
        taskIds = { ids: new Map(), used: new Set(), next: 0 };
        docIds.set(task, taskIds);
      }
      let docId = taskIds.ids.get(r.item);
      if (docId === undefined) {
        // `<task>/<int>` ids keep their number; others get the next free one (reported in itemIds).
        const m = r.item.startsWith(`${task}/`) ? /^\d+$/.exec(r.item.slice(task.length + 1)) : null;
        docId = m && !taskIds.used.has(Number(m[0])) ? Number(m[0]) : taskIds.next;
        while (taskIds.used.has(docId)) docId++;
        taskIds.next = Math.max(taskIds.next, docId + 1);
        taskIds.ids.set(r.item, docId);
        taskIds.used.add(docId);
        itemIds.set(r.item, `${task}/${docId}`);
      }
      const lps = logProbs(r);
      const k = r.options?.length ?? lps?.length ?? r.nOptions;
      if (k === undefined || !(k >= 2)) throw new LlmNrmError('INVALID_OPTIONS', `invalid option count: ${k} (item ${JSON.stringify(r.item)})`);
      // lm-eval's samples carry the gold answer: a key-free record has none to write.
      if (r.key === undefined)
        throw new LlmNrmError(
          'NO_KEY',
          `lm-eval output needs each item's key (its target), and item ${JSON.stringify(r.item)} has none: write tidy output instead`,
        );
      if (!(Number.isInteger(r.key) && r.key >= 0 && r.key < k))
        throw new LlmNrmError('INVALID_KEY', `key out of range: ${r.key} (item ${JSON.stringify(r.item)})`);
      if (r.position !== undefined && r.position.some((p, i) => p !== i)) positions++;
      if (r.leakage !== undefined) leakage++;
      const labels = letterLabels(k);
      const texts = r.options ?? labels;
      // A multiple-input item (per-option contexts) is requested as lm-eval's multiple-input tasks
      // request it: option i as (contexts[i], continuations[i]).
      const multi = options.tinyTask !== undefined && r.contexts?.length === k && r.continuations?.length === k;
      const exact = multi || (options.tinyTask !== undefined && typeof r.prompt === 'string' && r.continuations?.length === k);
      const doc: Record<string, unknown> =
        options.tinyTask !== undefined
          ? {
              item_id: r.item,
              benchmark: r.benchmark ?? '',
              prompt: r.prompt ?? '',
              continuations: r.continuations ?? labels.map((l) => ` ${l}`),
              ...(multi ? { contexts: r.contexts } : {}),
              gold: r.key,
              options: texts,
              choices: texts,
            }
          : { item: r.item, question: `Item ${r.item}`, choices: texts, answer: r.key };
      const ctx = multi ? r.contexts![0]! : exact ? r.prompt! : `Item ${r.item}\n${texts.map((t, i) => `${labels[i]}. ${t}`).join('\n')}\nAnswer:`;
      // lm-eval logs a multiple-input sample's target as the shared continuation (doc_to_target).
      const target = multi ? r.continuations![0]! : r.key;
      const sample: Record<string, unknown> = { doc_id: docId, doc, target };
      let acc: number;
      if (lps !== null) {
        let best = 0;
        for (let i = 1; i < k; i++) if (lps[i]! > lps[best]!) best = i;
        const pairs = lps.map((v, i) => [pyFloat(v), i === best ? 'True' : 'False']);
        const args: Record<string, unknown> = {};
        labels.forEach((l, i) => (args[`gen_args_${i}`] = { arg_0: multi ? r.contexts![i]! : ctx, arg_1: exact ? r.continuations![i]! : ` ${l}` }));
        sample.arguments = args;
        sample.resps = pairs.map((p) => [p]);
        sample.filtered_resps = pairs;
        acc = best === r.key ? 1 : 0;
        g.soft++;
      } else {
        const answer = r.choice === null || r.choice === undefined ? '[invalid]' : labels[r.choice]!;
        sample.arguments = { gen_args_0: { arg_0: ctx, arg_1: { until: ['\n\n'], do_sample: false } } };
        sample.resps = [[answer === '[invalid]' ? '' : ` ${answer}`]];
        sample.filtered_resps = [answer];
        acc = r.choice === r.key ? 1 : 0;
      }
      sample.filter = 'none';
      sample.metrics = [lps !== null ? 'acc' : 'exact_match'];
      sample.doc_hash = sha256(JSON.stringify(doc, null, 2));
      sample.prompt_hash = sha256(ctx);
      sample.target_hash = sha256(String(target));
      sample[lps !== null ? 'acc' : 'exact_match'] = acc;
      g.n++;
      g.correct += acc;
      const line = JSON.stringify(sample) + '\n';
      g.buffer.push(line);
      g.chars += line.length;
      buffered += line.length;
      total++;
      if (g.chars > GROUP_FLUSH) await flush(g);
      if (buffered > TOTAL_FLUSH) for (const x of allGroups()) await flush(x);
    }
    for (const g of allGroups()) await flush(g);
  } catch (e) {
    await Promise.all(allGroups().map((g) => rm(g.tmp, { force: true })));
    if (e instanceof LlmNrmError) throw e;
    throw new LlmNrmError('IO', `cannot write lm-eval outputs under ${outDir}: ${(e as Error).message}`, { cause: e, file: outDir });
  }
  const files: string[] = [];
  for (const g of allGroups()) {
    await rename(g.tmp, g.final);
    files.push(g.final);
  }
  for (const [model, groups] of byModel) {
    const results: Record<string, unknown> = {};
    const configs: Record<string, unknown> = {};
    const nSamples: Record<string, unknown> = {};
    const versions: Record<string, number> = {};
    for (const g of groups.values()) {
      const acc = g.correct / g.n;
      const metric = g.soft > 0 ? 'acc' : 'exact_match';
      results[g.task] = { alias: g.task, [`${metric},none`]: acc, [`${metric}_stderr,none`]: g.n > 1 ? Math.sqrt((acc * (1 - acc)) / (g.n - 1)) : 'N/A' };
      configs[g.task] = {
        task: g.task,
        output_type: g.soft > 0 ? 'multiple_choice' : 'generate_until',
        target_delimiter: options.tinyTask !== undefined ? '' : ' ',
        fewshot_delimiter: '\n\n',
        num_fewshot: 0,
        doc_to_choice: '{{choices}}',
        doc_to_target: '{{answer}}',
        metadata: { version: 1.0 },
      };
      nSamples[g.task] = { original: g.n, effective: g.n };
      versions[g.task] = 1.0;
    }
    const file = join(outDir, sanitizeModelName(model), `results_${stamp}.json`);
    const doc = {
      results,
      configs,
      versions,
      'n-samples': nSamples,
      config: { model: 'llm-nrm', model_args: `pretrained=${model}` },
      model_name: model,
      model_name_sanitized: sanitizeModelName(model),
      date: stamp,
      llm_nrm: 'written by @llm-nrm/adapters writeLmEvalHarness from tidy response records',
    };
    await writeFileAtomic(file, JSON.stringify(doc, null, 2) + '\n');
    files.push(file);
  }
  if (positions > 0) notes.push(`${positions} records had a display order (position); lm-eval samples cannot hold it, options written in content order`);
  if (leakage > 0) notes.push(`${leakage} records had leakage; not represented in lm-eval samples`);
  return { files, records: total, itemIds, notes };
}
