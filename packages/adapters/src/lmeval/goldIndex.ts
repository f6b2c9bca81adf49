// Gold (keyed option) recovery per task family, formats doc §3 and §8.5: `target` is the gold
// index for most tasks, but not for multiple_input tasks (winogrande: the shared continuation),
// truthfulqa_mc2 (`0` although several options are true) or v0.4.9+ string targets.
import { describeValue } from '@llm-nrm/core';
import { checkJsonDepth } from '../internal/jsonDepth.js';

/** A recovered key, or why none could be found. `multi` when several options are true (first kept). */
export type Gold = { key: number; multi?: boolean } | { error: string };

type Doc = Record<string, unknown>;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function isDigits(s: string): boolean {
  return /^\d+$/.test(s);
}

/** A letter `B`, `(B)`, `B.` or `B)` as a 0-based index. */
function letterIndex(s: string): number {
  const m = /^\(?([A-Z])[).:]?$/.exec(s.trim());
  return m ? LETTERS.indexOf(m[1]!) : -1;
}

function textIndex(s: string, lists: (readonly string[] | undefined)[]): number {
  for (const list of lists) {
    if (!list) continue;
    let i = list.indexOf(s);
    if (i >= 0) return i;
    const t = s.trim();
    i = list.findIndex((x) => x.trim() === t);
    if (i >= 0) return i;
  }
  return -1;
}

/** Gold from one value (int, digit string, letter, "(B)", option text, list); -1 when none. */
function goldFromValue(v: unknown, k: number, lists: (readonly string[] | undefined)[], oneBased = false): { key: number; multi?: boolean } | null {
  if (typeof v === 'number' && Number.isInteger(v)) return { key: oneBased ? v - 1 : v };
  if (typeof v === 'boolean') return null;
  if (Array.isArray(v)) {
    const first = v.length > 0 ? goldFromValue(v[0], k, lists, oneBased) : null;
    return first ? { key: first.key, multi: v.length > 1 } : null;
  }
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (/^\[.*\]$/.test(s)) {
    try {
      return goldFromValue(checkJsonDepth(JSON.parse(s) as unknown), k, lists, oneBased);
    } catch {
      return null;
    }
  }
  // Option text first: a target "2" is the text "2" when the options are digits (formats doc §3).
  const ti = textIndex(v, lists);
  if (ti >= 0) return { key: ti };
  if (isDigits(s)) return { key: Number(s) - (oneBased ? 1 : 0) };
  const li = letterIndex(s);
  if (li >= 0 && li < k) return { key: li };
  return null;
}

function inRange(g: { key: number; multi?: boolean } | null, k: number): Gold | null {
  if (g === null) return null;
  if (!(g.key >= 0 && g.key < k)) return { error: `gold out of range: ${g.key} (${k} options)` };
  return g;
}

/**
 * The keyed option of one multiple-choice sample. `scored` are the continuations lm-eval scored
 * (delimiter stripped), `display` the option texts shown in the tidy record.
 */
export function goldIndex(doc: unknown, target: unknown, k: number, scored: readonly string[], display: readonly string[], multipleInput: boolean): Gold {
  const d: Doc = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Doc) : {};
  const lists = [scored, display];
  // truthfulqa: mc1 is always keyed 0; mc2's true set is the labels == 1 (target 0 misleads).
  const mc2 = d.mc2_targets as { labels?: unknown[] } | undefined;
  if (mc2 && Array.isArray(mc2.labels) && mc2.labels.length === k) {
    const first = mc2.labels.findIndex((x) => x === 1 || x === '1');
    if (first >= 0) return { key: first, multi: mc2.labels.filter((x) => x === 1 || x === '1').length > 1 };
  }
  const mc1 = d.mc1_targets as { labels?: unknown[] } | undefined;
  if (mc1 && Array.isArray(mc1.labels) && mc1.labels.length === k) {
    const first = mc1.labels.findIndex((x) => x === 1 || x === '1');
    if (first >= 0) return { key: first };
  }
  if (multipleInput) {
    // winogrande: doc.answer "1"/"2" numbers option1/option2; the target is the shared continuation.
    const oneBased = 'option1' in d;
    for (const f of ['answer', 'label', 'gold']) {
      if (d[f] === undefined) continue;
      const g = inRange(goldFromValue(d[f], k, lists, oneBased && f === 'answer'), k);
      if (g) return g;
    }
    return { error: 'multiple_input task: no gold in doc (answer/label/gold)' };
  }
  if (target !== undefined && target !== null) {
    const g = inRange(goldFromValue(target, k, lists), k);
    if (g) return g;
  }
  for (const f of ['gold', 'label', 'answer', 'answerKey']) {
    const v = d[f];
    if (v === undefined || v === null) continue;
    let g: { key: number; multi?: boolean } | null;
    if (f === 'answerKey' && typeof v === 'string') {
      const labels = (d.choices as { label?: unknown } | undefined)?.label;
      const li = Array.isArray(labels) ? labels.indexOf(v.trim()) : -1;
      g = li >= 0 ? { key: li } : goldFromValue(v, k, lists);
    } else g = goldFromValue(v, k, lists);
    const r = inRange(g, k);
    if (r) return r;
  }
  return { error: `no gold: target ${describeValue(target)} is no option index, label or text` };
}

/** Letter labels A, B, C... for `k` options. */
export function letterLabels(k: number): string[] {
  return Array.from({ length: k }, (_, i) => (i < 26 ? LETTERS[i]! : String(i + 1)));
}
