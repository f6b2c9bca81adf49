// The results file of an lm-eval run, read from its text (browser-safe): which model and tasks it
// names and, for a run of a package's lm-eval/nrm_adaptive.py (`llm-nrm publish --adaptive`), its
// `nrm_adaptive` block: the items asked in order, the estimate after each round and why it stopped.
// The block's shape is the one nrm_adaptive.py's `run` writes (export/nrmAdaptivePy.ts).
import { LlmNrmError } from '@llm-nrm/core/record';
import { parseJsonLenient } from './parseJsonLenient.js';

/** Why an adaptive run stopped (analysis' `adaptiveStep`): the SE target, the item cap, or an exhausted pool. */
export type AdaptiveStop = 'se' | 'max-items' | 'pool';

/** One step of an adaptive run: the estimate from the items answered so far, and the items it asked next. */
export interface AdaptiveRound {
  answered: number;
  theta: number;
  se: number;
  /** Item ids asked next (empty on the last step, where the run stopped). */
  next: string[];
}

/** The `nrm_adaptive` block of an adaptive run's results file. */
export interface AdaptiveRunLog {
  stop: AdaptiveStop;
  theta: number;
  se: number;
  /** Item ids in the order they were asked. */
  items: string[];
  /** Items in the pool the run chose from. */
  pool: number;
  /** The stopping rule it ran under. */
  settings: { se: number; minItems: number; maxItems: number; batch: number };
  rounds: AdaptiveRound[];
}

/** What the site reads from an lm-eval results file. */
export interface LmEvalResultsText {
  /** `model_name` (lm-eval >= 0.4.3), else null. */
  model: string | null;
  tasks: string[];
  /** The adaptive run's log, or null for a results file of an ordinary run. */
  adaptive: AdaptiveRunLog | null;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Whether a text is an lm-eval results file (a JSON object with a `results` object), not samples:
 * results files are one pretty-printed object, samples one object a line with `doc_id`.
 */
export function isLmEvalResultsText(text: string): boolean {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/^\s*\{/.test(body) || /^\s*\{[^\n]*"doc_id"/.test(body)) return false;
  // JSON Lines (a second object at the start of a line) is never one object: decided without parsing a large file whole.
  if (/\n\{/.test(body.trimStart())) return false;
  try {
    const v = parseJsonLenient(body);
    return isObj(v) && isObj(v.results);
  } catch {
    return false;
  }
}

/**
 * Parse an lm-eval results file's text. A file that is not one, or whose `nrm_adaptive` block is
 * malformed (a field missing or of the wrong type, rounds out of order, items that do not add up),
 * throws FORMAT naming the file and the field.
 */
export function parseLmEvalResultsText(text: string, options: { file: string }): LmEvalResultsText {
  const file = options.file;
  const bad = (what: string) => new LlmNrmError('FORMAT', what, { file });
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let doc: unknown;
  try {
    doc = parseJsonLenient(body);
  } catch (e) {
    throw new LlmNrmError('FORMAT', `not a JSON lm-eval results file: ${(e as Error).message.slice(0, 120)}`, { file, line: 1 });
  }
  if (!isObj(doc) || !isObj(doc.results)) throw bad('not an lm-eval results file (no "results" object)');
  const model = typeof doc.model_name === 'string' && doc.model_name !== '' ? doc.model_name : null;
  const tasks = Object.keys(doc.results);
  const a = doc.nrm_adaptive;
  if (a === undefined) return { model, tasks, adaptive: null };
  if (!isObj(a)) throw bad('nrm_adaptive is not an object');
  const num = (v: unknown, field: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`nrm_adaptive.${field} must be a finite number, got ${JSON.stringify(v)}`);
    return v;
  };
  const count = (v: unknown, field: string): number => {
    const n = num(v, field);
    if (!Number.isInteger(n) || n < 0) throw bad(`nrm_adaptive.${field} must be a non-negative integer, got ${n}`);
    return n;
  };
  const ids = (v: unknown, field: string): string[] => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(`nrm_adaptive.${field} must be a list of item ids`);
    return v as string[];
  };
  if (a.stop !== 'se' && a.stop !== 'max-items' && a.stop !== 'pool')
    throw bad(`nrm_adaptive.stop must be "se", "max-items" or "pool", got ${JSON.stringify(a.stop)}`);
  if (!isObj(a.settings)) throw bad('nrm_adaptive.settings is not an object');
  const s = a.settings;
  const settings = {
    se: num(s.se, 'settings.se'),
    minItems: count(s.minItems, 'settings.minItems'),
    maxItems: count(s.maxItems, 'settings.maxItems'),
    batch: count(s.batch, 'settings.batch'),
  };
  const items = ids(a.items, 'items');
  if (new Set(items).size !== items.length) throw bad('nrm_adaptive.items asks an item twice');
  if (!Array.isArray(a.rounds) || a.rounds.length === 0) throw bad('nrm_adaptive.rounds must be a non-empty list');
  const rounds: AdaptiveRound[] = a.rounds.map((r: unknown, n: number) => {
    if (!isObj(r)) throw bad(`nrm_adaptive.rounds[${n}] is not an object`);
    return {
      answered: count(r.answered, `rounds[${n}].answered`),
      theta: num(r.theta, `rounds[${n}].theta`),
      se: num(r.se, `rounds[${n}].se`),
      next: ids(r.next, `rounds[${n}].next`),
    };
  });
  // The rounds must account for the items: each starts where the last one's asked items end, and together they asked `items` in order.
  let at = 0;
  for (const [n, r] of rounds.entries()) {
    if (r.answered !== at) throw bad(`nrm_adaptive.rounds[${n}].answered is ${r.answered}, but the rounds before it asked ${at} items`);
    if (r.next.some((id, k) => items[at + k] !== id))
      throw bad(`nrm_adaptive.rounds[${n}].next is not items ${at + 1}-${at + r.next.length} of nrm_adaptive.items`);
    at += r.next.length;
  }
  if (at !== items.length) throw bad(`nrm_adaptive.rounds ask ${at} items, nrm_adaptive.items lists ${items.length}`);
  if (rounds[rounds.length - 1]!.next.length !== 0) throw bad('nrm_adaptive.rounds does not end with the step that stopped (its next is not empty)');
  return {
    model,
    tasks,
    adaptive: { stop: a.stop, theta: num(a.theta, 'theta'), se: num(a.se, 'se'), items, pool: count(a.pool, 'pool'), settings, rounds },
  };
}
