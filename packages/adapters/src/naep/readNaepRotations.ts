import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeValue, LlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { newReport, type ReadOptions } from '../reader.js';
import { walkFiles } from '../walk.js';
import { parseJsonLenient } from '../lmeval/parseJsonLenient.js';
import { splitLines } from '../lmeval/splitLines.js';
import { fileChunks, textChunks } from '../lmeval/textChunks.js';

export interface NaepReadOptions extends ReadOptions {
  /** Also emit the OracleBaseline and UniformBaseline pseudo-models. Default false. */
  includeBaselines?: boolean;
}

/** Pseudo-models of the mainlp-llm-psychometrics data: not LLMs, skipped unless asked for. */
export const NAEP_BASELINES: readonly string[] = ['OracleBaseline', 'UniformBaseline'];

const ITEMS_NAME = /^naep-(.+)-items\.jsonl(?:\.gz)?$/;
const RESPONSES_NAME = /^naep-(.+?)-responses-(.+)\.jsonl(?:\.gz)?$/;

interface NaepItem {
  key: number;
  options: string[];
  /** The question text of the item file. */
  stem?: string;
}

async function listFiles(dir: string, out: string[]): Promise<void> {
  out.push(...(await walkFiles(dir)));
}

async function* jsonLines(file: string): AsyncGenerator<{ value: unknown; line: number } | { error: string; line: number }> {
  let line = 0;
  for await (const text of splitLines(textChunks(fileChunks(file)))) {
    line++;
    if (text.trim() === '') continue;
    try {
      yield { value: parseJsonLenient(text), line };
    } catch (e) {
      yield { error: `invalid JSON: ${(e as Error).message.slice(0, 120)}`, line };
    }
  }
}

/**
 * Read the mainlp-llm-psychometrics NAEP data (Säuberli et al., BEA 2025): a folder holding
 * `naep-<subject>-items.jsonl` ({stem, options, item_id, correct_option_index}) and
 * `naep-<subject>-responses-<MODEL>.jsonl` ({item_id, logits: K x K}). Row r of `logits` is the
 * presentation under cyclic rotation r, already mapped back to content order, so original option i
 * was shown at position (i - r) mod K. One record per (model, item, rotation): `logprobs` = the row
 * (raw letter logits; core's softmax makes them a distribution), `position` = displayed positions.
 * Response rows for items missing from the items file are skipped and reported.
 */
export async function* readNaepRotations(dir: string, options: NaepReadOptions = {}): AsyncGenerator<ResponseRecord> {
  const report = options.report ?? newReport();
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read NAEP folder: ${(e as Error).message}`, { cause: e, file: dir });
  }
  const files: string[] = [];
  await listFiles(dir, files);
  const items = new Map<string, Map<string, NaepItem>>();
  for (const f of files) {
    const m = ITEMS_NAME.exec(basename(f));
    if (!m) continue;
    const subject = m[1]!;
    const map = items.get(subject) ?? new Map<string, NaepItem>();
    items.set(subject, map);
    for await (const v of jsonLines(f)) {
      if ('error' in v) {
        report.skipped.push({ file: f, line: v.line, reason: v.error });
        continue;
      }
      const o = v.value as { item_id?: unknown; options?: unknown; correct_option_index?: unknown };
      const opts = o.options;
      if (
        typeof o.item_id !== 'string' ||
        !Array.isArray(opts) ||
        opts.length < 2 ||
        !Number.isInteger(o.correct_option_index) ||
        (o.correct_option_index as number) < 0 ||
        (o.correct_option_index as number) >= opts.length
      ) {
        report.skipped.push({ file: f, line: v.line, reason: `invalid item: ${describeValue(v.value)}` });
        continue;
      }
      const it: NaepItem = { key: o.correct_option_index as number, options: opts.map(String) };
      if (typeof (o as { stem?: unknown }).stem === 'string') it.stem = (o as { stem: string }).stem;
      map.set(o.item_id, it);
    }
  }
  if (items.size === 0) throw new LlmNrmError('FORMAT', 'no naep-<subject>-items.jsonl file found', { file: dir });
  const skippedBaselines = new Set<string>();
  for (const f of files) {
    const m = RESPONSES_NAME.exec(basename(f));
    if (!m) continue;
    const [, subject, model] = m as unknown as [string, string, string];
    if (!options.includeBaselines && NAEP_BASELINES.includes(model)) {
      skippedBaselines.add(model);
      continue;
    }
    const subjectItems = items.get(subject);
    if (subjectItems === undefined) {
      report.skipped.push({ file: f, reason: `no items file for subject '${subject}'` });
      continue;
    }
    const name = options.model ?? model;
    for await (const v of jsonLines(f)) {
      if ('error' in v) {
        report.skipped.push({ file: f, line: v.line, reason: v.error });
        continue;
      }
      const o = v.value as { item_id?: unknown; logits?: unknown };
      const item = typeof o.item_id === 'string' ? subjectItems.get(o.item_id) : undefined;
      if (item === undefined) {
        // Reported with the skipped units (file, line, item id), counted per file there: no note of its own.
        report.skipped.push({ file: f, line: v.line, reason: `item_id ${describeValue(o.item_id)} not in naep-${subject}-items.jsonl` });
        continue;
      }
      const k = item.options.length;
      const rows = o.logits;
      if (!Array.isArray(rows) || rows.length === 0 || !rows.every((row) => Array.isArray(row) && row.length === k)) {
        report.skipped.push({ file: f, line: v.line, reason: `logits must be rows of ${k} numbers, got ${describeValue(rows)}` });
        continue;
      }
      for (let r = 0; r < rows.length; r++) {
        // Numbers, or the number strings Python's json writes ("NaN"); nothing else converts (Number([[...]]) recurses).
        const row = (rows[r] as unknown[]).map((x) => (typeof x === 'number' ? x : typeof x === 'string' ? Number(x) : NaN));
        if (row.some((x) => Number.isNaN(x) || x === Infinity)) {
          report.skipped.push({ file: f, line: v.line, reason: `rotation ${r}: invalid logits ${describeValue(rows[r])}` });
          continue;
        }
        report.records++;
        yield {
          model: name,
          item: `${subject}/${o.item_id as string}`,
          benchmark: subject,
          key: item.key,
          options: item.options,
          logprobs: row,
          position: Array.from({ length: k }, (_, i) => (((i - r) % k) + k) % k),
          // The item file holds the question, not the rotated prompt each response was read from:
          // `prompt` is the stem alone, without continuations (publish renders a prompt from it).
          ...(item.stem !== undefined ? { prompt: item.stem } : {}),
          source: { harness: 'naep', task: subject, docId: o.item_id as string },
        };
      }
    }
  }
  if (skippedBaselines.size > 0)
    report.notes.push(`baseline pseudo-models left out (--include-baselines keeps them): ${[...skippedBaselines].sort().join(', ')}`);
}
