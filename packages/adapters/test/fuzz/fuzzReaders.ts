// Property tests of every reader on mutated real fixture records (fast-check, seeded): a cut file,
// flipped bytes, a dropped or retyped field, a huge number, deep nesting. Properties:
//   1. nothing but the project's typed error (LlmNrmError) ever escapes a reader;
//   2. under skipInvalid, every record of the clean file comes out or a skip is listed (no silent loss),
//      unless the mutation left a valid shorter input (a JSON Lines file cut exactly at a line end, an
//      array element removed), which no reader can tell from a smaller run;
//   3. without skipInvalid, the read either fails with a typed error or gives what skipInvalid gave
//      with no damage listed.
// Shared by test/fuzz.test.ts (40 cases per reader), test/fuzz.e2e.test.ts (400) and bench/fuzz.mjs
// (10,000 cases per reader).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { LlmNrmError } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { convertPaths, convertSourced } from '../../src/convert.js';
import { issueKind, type FormatName } from '../../src/reader.js';
import { writeResponses } from '../../src/tidy/writeResponses.js';

/** One reader under test: the files of a clean case, which one is mutated, what to read. */
export interface FuzzTarget {
  name: string;
  format: FormatName;
  /** Files of a case (name relative to the case folder -> bytes), built once from the fixtures. */
  files: () => Promise<Map<string, Uint8Array>>;
  /** The file mutations apply to. */
  mutated: string;
  /** What the reader is given: the case folder, or a file in it. */
  input: string | null;
  /** Whether the mutated file is JSON text (field mutations apply) and how: one document or lines. */
  json: 'lines' | 'document' | null;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const read = (p: string): Uint8Array => new Uint8Array(readFileSync(p));
const firstLines = (p: string, n: number): Uint8Array => text(readFileSync(p, 'utf8').split('\n').slice(0, n).join('\n') + '\n');

const HELM_RUN = fixture('helm/every_eval_ever/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2');
const NAEP = fixture('response-matrices/mainlp-llm-psychometrics');
const GPT4O = fixture('lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl');

export const FUZZ_TARGETS: FuzzTarget[] = [
  {
    name: 'tidy (JSON Lines from the HELM MMLU run)',
    format: 'tidy',
    mutated: 'responses.jsonl',
    input: 'responses.jsonl',
    json: 'lines',
    files: async () => {
      const { dir, cleanup } = tempDir('llm-nrm-fuzz-setup-');
      try {
        await writeResponses(convertPaths([HELM_RUN]).records, join(dir, 'r.jsonl'));
        return new Map([['responses.jsonl', read(join(dir, 'r.jsonl'))]]);
      } finally {
        cleanup();
      }
    },
  },
  {
    name: 'lm-eval-harness (samples_winogrande, gpt-4o)',
    format: 'lm-eval-harness',
    mutated: basename(GPT4O),
    input: basename(GPT4O),
    json: 'lines',
    files: async () => new Map([[basename(GPT4O), read(GPT4O)]]),
  },
  {
    name: 'helm (scenario_state.json of the MMLU run)',
    format: 'helm',
    mutated: 'scenario_state.json',
    input: null,
    json: 'document',
    files: async () => new Map(['run_spec.json', 'scenario_state.json'].map((f) => [f, read(join(HELM_RUN, f))])),
  },
  {
    name: 'inspect (legacy JSON log, ARC by Qwen)',
    format: 'inspect',
    mutated: 'data_arc_qwen.json',
    input: 'data_arc_qwen.json',
    json: 'document',
    files: async () => new Map([['data_arc_qwen.json', read(fixture('inspect/every_eval_ever/data_arc_qwen.json'))]]),
  },
  {
    name: 'inspect (.eval zip archive)',
    format: 'inspect',
    mutated: 'mmlu.eval',
    input: 'mmlu.eval',
    json: null,
    files: async () => new Map([['mmlu.eval', read(fixture('inspect/inspect_ai-tests/mmlu-summary-choices.eval'))]]),
  },
  {
    name: 'openai-evals (record log)',
    format: 'openai-evals',
    mutated: 'oriprompt.log',
    input: 'oriprompt.log',
    json: 'lines',
    files: async () => new Map([['oriprompt.log', read(fixture('openai-evals/openai-evals-repo/oriprompt.log'))]]),
  },
  {
    name: 'naep-rotations (30 item and response lines)',
    format: 'naep-rotations',
    mutated: 'naep-history-responses-Qwen2.5-3B.jsonl',
    input: null,
    json: 'lines',
    files: async () =>
      new Map([
        ['naep-history-items.jsonl', firstLines(join(NAEP, 'data/output/naep-history-items.jsonl'), 30)],
        ['naep-history-responses-Qwen2.5-3B.jsonl', firstLines(join(NAEP, 'llm-responses/output/naep-history-responses-Qwen2.5-3B.jsonl'), 30)],
      ]),
  },
];

/** A mutation of one file's bytes. */
export type Mutation =
  | { kind: 'cut'; at: number }
  | { kind: 'flip'; flips: { at: number; byte: number }[] }
  | { kind: 'field'; record: number; path: number; op: 'drop' | 'retype' | 'huge' | 'deep'; variant: number };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), flips: fc.array(fc.record({ at: fc.nat(), byte: fc.nat(255) }), { minLength: 1, maxLength: 3 }) }),
  fc.record({
    kind: fc.constant('field' as const),
    record: fc.nat(),
    path: fc.nat(),
    op: fc.constantFrom('drop' as const, 'retype' as const, 'huge' as const, 'deep' as const),
    variant: fc.nat(7),
  }),
);

const RETYPED: unknown[] = ['x', 0, -1, 1.5, null, [], {}, true];
const HUGE: string[] = ['1e308', '-1e308', '1e999', '-1e999', '123456789012345678901234567890', '5e-324', 'NaN', '-Infinity'];

/** Paths (key lists) of the first nodes of a JSON value, breadth-first, at most `limit`. */
function paths(value: unknown, limit = 400): (string | number)[][] {
  const out: (string | number)[][] = [];
  const queue: [unknown, (string | number)[]][] = [[value, []]];
  while (queue.length > 0 && out.length < limit) {
    const [v, p] = queue.shift()!;
    if (v === null || typeof v !== 'object') continue;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v as object);
    for (const [k, x] of entries) {
      out.push([...p, k]);
      queue.push([x, [...p, k]]);
    }
  }
  return out;
}

const HUGE_MARK = '__llm_nrm_fuzz_huge__';

/**
 * Apply a field mutation to one JSON value; returns its new text (huge numbers spliced in as raw
 * tokens) and whether it only removed an array element (a valid, shorter input: nothing to detect).
 */
function mutateValue(value: unknown, m: Extract<Mutation, { kind: 'field' }>): { text: string; validShorter: boolean } {
  const all = paths(value);
  if (all.length === 0) return { text: JSON.stringify(value), validShorter: false };
  const path = all[m.path % all.length]!;
  let parent = value as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  let validShorter = false;
  if (m.op === 'drop') {
    if (Array.isArray(parent)) {
      parent.splice(last as number, 1);
      validShorter = true;
    } else delete parent[last];
  } else if (m.op === 'retype') {
    parent[last] = RETYPED[m.variant % RETYPED.length];
  } else if (m.op === 'huge') {
    parent[last] = HUGE_MARK;
  } else {
    // Deep nesting: 2,000 to 20,000 levels of arrays around the old value.
    parent[last] = HUGE_MARK + 'deep';
  }
  const depth = 2000 + 2571 * m.variant;
  const text = JSON.stringify(value)
    .replace(`"${HUGE_MARK}deep"`, '['.repeat(depth) + '1' + ']'.repeat(depth))
    .replace(`"${HUGE_MARK}"`, HUGE[m.variant % HUGE.length]!);
  return { text, validShorter };
}

/** A mutated file, and whether it is merely a valid shorter input (a loss no reader can detect). */
export interface Mutated {
  bytes: Uint8Array;
  /** A JSON Lines file cut at a line boundary, or an array element removed: valid input with fewer records. */
  validShorter: boolean;
}

/** The mutated bytes of a file. */
export function mutate(bytes: Uint8Array, m: Mutation, json: FuzzTarget['json']): Mutated {
  if (m.kind === 'cut') {
    const at = bytes.length === 0 ? 0 : m.at % bytes.length;
    // A JSON Lines file cut where a line ends is a complete file with fewer lines.
    const boundary = json === 'lines' && (at === 0 || bytes[at - 1] === 10 || bytes[at] === 10);
    return { bytes: bytes.subarray(0, at), validShorter: boundary };
  }
  if (m.kind === 'flip') {
    const out = bytes.slice();
    for (const f of m.flips) if (out.length > 0) out[f.at % out.length] = f.byte;
    return { bytes: out, validShorter: false };
  }
  if (json === null) return mutate(bytes, { kind: 'flip', flips: [{ at: m.path, byte: m.variant * 31 }] }, null);
  const s = new TextDecoder().decode(bytes);
  if (json === 'document') {
    try {
      const r = mutateValue(JSON.parse(s), m);
      return { bytes: text(r.text), validShorter: r.validShorter };
    } catch {
      return { bytes, validShorter: false };
    }
  }
  const lines = s.split('\n');
  const nonEmpty = lines.map((l, i) => [l, i] as const).filter(([l]) => l.trim() !== '');
  if (nonEmpty.length === 0) return { bytes, validShorter: false };
  const [line, i] = nonEmpty[m.record % nonEmpty.length]!;
  let validShorter: boolean;
  try {
    const r = mutateValue(JSON.parse(line), m);
    lines[i] = r.text;
    validShorter = r.validShorter;
  } catch {
    return { bytes, validShorter: false };
  }
  return { bytes: text(lines.join('\n')), validShorter };
}

/** What one read gave: the records out, the skipped units (damage among them), or a typed error. */
interface Outcome {
  records: number;
  skipped: number;
  damage: number;
  error?: LlmNrmError;
}

async function readCase(input: string, format: FormatName, skipInvalid: boolean): Promise<Outcome> {
  const { records, summary } = convertSourced([input], { from: format, skipInvalid });
  let n = 0;
  try {
    for await (const _ of records) n++;
  } catch (e) {
    // Property 1: only the typed error.
    if (!(e instanceof LlmNrmError)) throw new Error(`untyped exception from the ${format} reader: ${(e as Error)?.stack ?? e}`, { cause: e });
    return { records: n, skipped: summary.skipped.length, damage: 0, error: e };
  }
  return { records: n, skipped: summary.skipped.length, damage: summary.skipped.filter((s) => issueKind(s) === 'damage').length };
}

export interface FuzzFigures {
  target: string;
  cases: number;
  seconds: number;
  /** Cases whose read completed with every record (the mutation changed nothing that mattered). */
  clean: number;
  /** Cases that completed with a loss, each listed as skipped. */
  listedLoss: number;
  /** Cases that ended in a typed error (under skipInvalid). */
  typedErrors: number;
  /** Cases whose mutation left a valid shorter input (cut at a line end, an array element removed). */
  validShorter: number;
}

/** Run `cases` seeded cases on one target; throws (fast-check's report) on a property failure. */
export async function fuzzTarget(target: FuzzTarget, cases: number, seed: number): Promise<FuzzFigures> {
  const files = await target.files();
  const { dir: root, cleanup } = tempDir('llm-nrm-fuzz-');
  const figures: FuzzFigures = { target: target.name, cases, seconds: 0, clean: 0, listedLoss: 0, typedErrors: 0, validShorter: 0 };
  let caseNo = 0;
  const writeCase = (bytes: Uint8Array): string => {
    const dir = join(root, String(caseNo++));
    mkdirSync(dir);
    for (const [name, b] of files) writeFileSync(join(dir, name), name === target.mutated ? bytes : b);
    return target.input === null ? dir : join(dir, target.input);
  };
  const started = Date.now();
  try {
    const cleanInput = writeCase(files.get(target.mutated)!);
    const clean = await readCase(cleanInput, target.format, true);
    await fc.assert(
      fc.asyncProperty(mutationArb, async (m) => {
        const mutated = mutate(files.get(target.mutated)!, m, target.json);
        const input = writeCase(mutated.bytes);
        try {
          const lenient = await readCase(input, target.format, true);
          if (lenient.error !== undefined) figures.typedErrors++;
          else if (lenient.records >= clean.records) figures.clean++;
          else if (mutated.validShorter && lenient.skipped === 0) figures.validShorter++;
          else {
            // Property 2: a loss is always listed.
            if (lenient.skipped === 0) throw new Error(`silent loss: ${lenient.records} of ${clean.records} records and nothing listed as skipped`);
            figures.listedLoss++;
          }
          // Property 3: strict reads fail typed, or agree with the lenient read and list no damage.
          const strict = await readCase(input, target.format, false);
          if (strict.error === undefined) {
            if (strict.damage > 0) throw new Error(`damage listed (${strict.damage}) but no error without skipInvalid`);
            if (lenient.error === undefined && strict.records !== lenient.records)
              throw new Error(`strict read gave ${strict.records} records, lenient ${lenient.records}`);
          }
        } finally {
          rmSync(join(input, target.input === null ? '.' : '..'), { recursive: true, force: true });
        }
      }),
      { numRuns: cases, seed, endOnFailure: true },
    );
  } finally {
    cleanup();
  }
  figures.seconds = (Date.now() - started) / 1000;
  return figures;
}
