import type { ResponseRecord } from '@llm-nrm/core';

/** Element type of a tidy column in Arrow and Parquet files. */
export type TidyColumnType = 'string' | 'int' | 'float' | 'string[]' | 'int[]' | 'float[]';

/**
 * The columns of a tidy Arrow or Parquet file, in order. `model`, `item` and `key` are required;
 * every other column is nullable (null = field absent). Probabilities, logprobs and leakage are
 * float64 so values round-trip exactly; `-Infinity` is stored as is. `choice` is null both for soft
 * records and for unparsable hard answers: a row whose `probs` and `logprobs` are null is a hard
 * answer, so the two cases stay apart.
 */
export const TIDY_COLUMNS: readonly { name: keyof ResponseRecord; type: TidyColumnType; required: boolean }[] = [
  { name: 'model', type: 'string', required: true },
  { name: 'item', type: 'string', required: true },
  { name: 'benchmark', type: 'string', required: false },
  { name: 'key', type: 'int', required: true },
  { name: 'options', type: 'string[]', required: false },
  { name: 'probs', type: 'float[]', required: false },
  { name: 'logprobs', type: 'float[]', required: false },
  { name: 'choice', type: 'int', required: false },
  { name: 'nOptions', type: 'int', required: false },
  { name: 'position', type: 'int[]', required: false },
  { name: 'leakage', type: 'float', required: false },
  { name: 'prompt', type: 'string', required: false },
  { name: 'continuations', type: 'string[]', required: false },
  // A multiple-input item's per-option contexts (core's ResponseRecord.contexts).
  { name: 'contexts', type: 'string[]', required: false },
  // An object: stored as its JSON text, since the column stores here hold flat types only.
  { name: 'source', type: 'string', required: false },
];

/** Column values of a batch of records (null where a field is absent). */
export function recordColumns(records: readonly ResponseRecord[]): Map<string, unknown[]> {
  const cols = new Map<string, unknown[]>();
  for (const c of TIDY_COLUMNS) {
    const values = new Array<unknown>(records.length);
    for (let i = 0; i < records.length; i++) {
      const v = records[i]![c.name] ?? null;
      values[i] = c.name === 'source' && v !== null ? JSON.stringify(v) : v;
    }
    cols.set(c.name, values);
  }
  return cols;
}

/**
 * A cell read from a column store as a plain JS value: 64-bit integers (pyarrow writes int64 by
 * default) as numbers, typed arrays and Arrow vectors as arrays, undefined as null.
 */
export function plainCell(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'object' && !Array.isArray(v) && Symbol.iterator in (v as object) && typeof v !== 'string') {
    return Array.from(v as Iterable<unknown>, plainCell);
  }
  // A list of plain numbers or strings (a probs row) is handed on as it is: a copy per row was most
  // of a Parquet read's garbage.
  if (Array.isArray(v)) return v.some(notPlain) ? v.map(plainCell) : v;
  return v;
}

const notPlain = (x: unknown): boolean => x === undefined || typeof x === 'bigint' || (typeof x === 'object' && x !== null);
