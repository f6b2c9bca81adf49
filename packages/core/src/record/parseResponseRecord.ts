import { LlmNrmError } from '../errors.js';
import type { ItemSource, ResponseRecord } from '../model/types.js';

/** Largest option count a record (and a bank) accepts: positions are stored in a Uint8Array. */
export const MAX_OPTIONS = 20;

export interface ParseRecordOptions {
  /** The value is the caller's alone (just parsed): its arrays become the record's, normalised in place, not copied. */
  adopt?: boolean;
}

/**
 * Validate one response record (a parsed JSON Lines value, an Arrow/Parquet row, or a harness
 * reader's record) and return it in canonical form: the one record check of llm-nrm (the tidy
 * reader, `convert`, `bankFromRecords`). Throws an `LlmNrmError` naming the field and value.
 *
 * Conventions of the tidy format (also in tidy/index.ts): `null` for an optional field is absent;
 * the response is whichever of `probs`, `logprobs`, `choice` is non-null (more than one is an
 * error; none with a `choice` key is `choice: null`, missing); in `logprobs` `"-Infinity"`,
 * `"-inf"`, `null` or `-Infinity` is an unreported option; unknown fields are ignored.
 */
export function parseResponseRecord(value: unknown, options: ParseRecordOptions = {}): ResponseRecord {
  const adopt = options.adopt === true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new LlmNrmError('INVALID_RECORD', `record is not an object: ${describeValue(value)}`);
  }
  const v = value as Record<string, unknown>;
  if (typeof v.model !== 'string' || v.model === '') throw invalid('model must be a non-empty string', v.model);
  if (typeof v.item !== 'string' || v.item === '') throw invalid('item must be a non-empty string', v.item);
  // No key (absent or null) is a key-free record: option-level families fit without one.
  if (v.key != null && (typeof v.key !== 'number' || !Number.isInteger(v.key) || v.key < 0)) {
    throw new LlmNrmError('INVALID_KEY', `key must be a non-negative integer, got ${describeValue(v.key)}`);
  }
  const r: ResponseRecord = { model: v.model, item: v.item };
  // -0 is 0 (JSON writes it as 0, and a record must read back as it was written).
  if (v.key != null) r.key = (v.key as number) + 0;
  if (v.benchmark != null) {
    if (typeof v.benchmark !== 'string') throw invalid('benchmark must be a string', v.benchmark);
    r.benchmark = v.benchmark;
  }
  if (v.options != null) {
    if (!Array.isArray(v.options) || !v.options.every((o) => typeof o === 'string')) {
      throw invalid('options must be an array of strings', v.options);
    }
    r.options = adopt ? (v.options as string[]) : (v.options.slice() as string[]);
  }

  const given = (v.probs != null ? 1 : 0) + (v.logprobs != null ? 1 : 0) + (v.choice != null ? 1 : 0);
  if (given > 1) {
    const names = ['probs', 'logprobs', 'choice'].filter((n) => v[n] != null).join(', ');
    throw new LlmNrmError('INVALID_RECORD', `record must have exactly one of probs, logprobs, choice (has ${names})`);
  }
  if (given === 0 && !('choice' in v)) {
    throw new LlmNrmError('INVALID_RECORD', 'record has no response: give probs, logprobs or choice (null for an unparsable answer)');
  }
  if (v.probs != null) {
    if (!Array.isArray(v.probs)) throw new LlmNrmError('INVALID_PROBS', `probs must be an array of numbers, got ${describeValue(v.probs)}`);
    let sum = 0;
    const src = v.probs as unknown[];
    const probs: number[] = adopt ? (src as number[]) : new Array<number>(src.length);
    for (let i = 0; i < src.length; i++) {
      const p = src[i];
      if (typeof p !== 'number' || !Number.isFinite(p) || p < 0) {
        throw new LlmNrmError('INVALID_PROBS', `invalid probability at option ${i}: ${describeValue(p)}`);
      }
      sum += p;
      probs[i] = p + 0;
    }
    r.probs = probs;
    // Renormalising divides by the sum: zero has no distribution, and an overflowing sum
    // ([1e308, 1e308]) would turn every share into 0 or NaN.
    if (sum === 0) throw new LlmNrmError('INVALID_PROBS', `probabilities sum to 0 (all zero): ${describeValue(v.probs)}`);
    if (!Number.isFinite(sum)) throw new LlmNrmError('INVALID_PROBS', `probabilities overflow when summed: ${describeValue(v.probs)}`);
  } else if (v.logprobs != null) {
    if (!Array.isArray(v.logprobs)) throw new LlmNrmError('INVALID_PROBS', `logprobs must be an array of numbers, got ${describeValue(v.logprobs)}`);
    const src = v.logprobs as unknown[];
    const lp: number[] = adopt ? (src as number[]) : new Array<number>(src.length);
    for (let i = 0; i < src.length; i++) {
      const p = src[i];
      if (p === null || p === '-Infinity' || p === '-inf') lp[i] = -Infinity;
      else if (typeof p !== 'number' || Number.isNaN(p) || p === Infinity) {
        throw new LlmNrmError('INVALID_PROBS', `invalid logprob at option ${i}: ${describeValue(p)}`);
      } else lp[i] = p + 0;
    }
    r.logprobs = lp;
    if (r.logprobs.length > 0 && r.logprobs.every((p) => p === -Infinity)) {
      throw new LlmNrmError('INVALID_PROBS', 'every logprob is -Infinity: no option has mass');
    }
  } else {
    const c = v.choice ?? null;
    if (c !== null && (typeof c !== 'number' || !Number.isInteger(c) || c < 0)) {
      throw invalid('choice must be a non-negative integer or null', c);
    }
    r.choice = c === null ? null : (c as number) + 0;
  }
  if (v.nOptions != null) {
    if (typeof v.nOptions !== 'number' || !Number.isInteger(v.nOptions) || v.nOptions < 2 || v.nOptions > MAX_OPTIONS) {
      throw new LlmNrmError('INVALID_OPTIONS', `invalid option count: ${describeValue(v.nOptions)} (must be 2 to ${MAX_OPTIONS})`);
    }
    r.nOptions = v.nOptions + 0;
  }
  if (v.position != null) {
    if (!Array.isArray(v.position) || !v.position.every((p) => typeof p === 'number' && Number.isInteger(p) && p >= 0)) {
      throw invalid('position must be an array of non-negative integers', v.position);
    }
    const src = v.position as number[];
    const pos = adopt ? src : new Array<number>(src.length);
    for (let i = 0; i < src.length; i++) pos[i] = src[i]! + 0;
    r.position = pos;
  }
  if (v.leakage != null) {
    if (typeof v.leakage !== 'number' || !(v.leakage >= 0 && v.leakage <= 1)) throw invalid('leakage must be a number in [0, 1]', v.leakage);
    r.leakage = v.leakage + 0;
  }
  if (v.prompt != null) {
    if (typeof v.prompt !== 'string') throw invalid('prompt must be a string', v.prompt);
    r.prompt = v.prompt;
  }
  if (v.continuations != null) {
    if (!Array.isArray(v.continuations) || !v.continuations.every((o) => typeof o === 'string')) {
      throw invalid('continuations must be an array of strings', v.continuations);
    }
    r.continuations = adopt ? (v.continuations as string[]) : (v.continuations.slice() as string[]);
  }
  if (v.contexts != null) {
    if (!Array.isArray(v.contexts) || !v.contexts.every((o) => typeof o === 'string')) {
      throw invalid('contexts must be an array of strings (one context per option)', v.contexts);
    }
    // One context for every option, or one per option: a record that gave both would be two texts.
    if (r.prompt !== undefined)
      throw invalid('a record has prompt (one context for every option) or contexts (one per option), not both; contexts', v.contexts);
    r.contexts = adopt ? (v.contexts as string[]) : (v.contexts.slice() as string[]);
  }
  if (v.source != null) r.source = parseItemSource(v.source);

  // Every length given must agree, and the key (and a hard choice) must index an option.
  let name0 = '';
  let k = -1;
  const agree = (name: string, n: number | undefined): void => {
    if (n === undefined) return;
    if (k < 0) {
      name0 = name;
      k = n;
    } else if (n !== k) throw new LlmNrmError('INVALID_OPTIONS', `option counts disagree: ${name0} has ${k}, ${name} has ${n}`);
  };
  agree('options', r.options?.length);
  agree('probs', r.probs?.length);
  agree('logprobs', r.logprobs?.length);
  agree('nOptions', r.nOptions);
  agree('position', r.position?.length);
  agree('continuations', r.continuations?.length);
  agree('contexts', r.contexts?.length);
  if (k >= 0) {
    if (k < 2 || k > MAX_OPTIONS) throw new LlmNrmError('INVALID_OPTIONS', `invalid option count: ${k} (must be 2 to ${MAX_OPTIONS})`);
    if (r.key !== undefined && r.key >= k) throw new LlmNrmError('INVALID_KEY', `key out of range: ${r.key} (${k} options)`);
    if (typeof r.choice === 'number' && r.choice >= k) throw invalid(`choice out of range (${k} options)`, r.choice);
    if (r.position) {
      const seen = new Uint8Array(k);
      for (const p of r.position) {
        if (p >= k || seen[p]) throw invalid(`position is not a permutation of 0..${k - 1}`, r.position);
        seen[p] = 1;
      }
    }
  }
  return r;
}

/** `source`: an object, or its JSON text (how Arrow and Parquet files store it). */
function parseItemSource(value: unknown): ItemSource {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw invalid('source must be an object {harness, task?, docId?, split?}', value);
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalid('source must be an object {harness, task?, docId?, split?}', value);
  const o = v as Record<string, unknown>;
  if (typeof o.harness !== 'string' || o.harness === '') throw invalid('source.harness must be a non-empty string', o.harness);
  const out: ItemSource = { harness: o.harness };
  for (const f of ['task', 'docId', 'split', 'docHash'] as const) {
    if (o[f] == null) continue;
    if (typeof o[f] !== 'string') throw invalid(`source.${f} must be a string`, o[f]);
    out[f] = o[f] as string;
  }
  return out;
}

function invalid(what: string, value: unknown): LlmNrmError {
  return new LlmNrmError('INVALID_RECORD', `${what}, got ${describeValue(value)}`);
}

/** A value for an error message: JSON, but NaN/Infinity spelled out and long values cut. */
export function describeValue(value: unknown): string {
  let s: string;
  if (typeof value === 'number' && !Number.isFinite(value)) s = String(value);
  else if (value === undefined) s = 'undefined';
  else if (typeof value === 'bigint') s = `${value}`;
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      // Too deep to print (stack overflow) or cyclic: say what it is.
      s = Array.isArray(value) ? '[a deeply nested array]' : typeof value === 'object' ? '{a deeply nested object}' : typeof value;
    }
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** The option count a record states (options, a distribution, nOptions or position), if any. */
export function statedOptions(r: ResponseRecord): number | undefined {
  return r.options?.length ?? r.probs?.length ?? r.logprobs?.length ?? r.nOptions ?? r.position?.length;
}

/** Whether two optional lists of texts are the same (both absent, or equal entry by entry). */
export function sameTexts(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
