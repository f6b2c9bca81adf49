import { LlmNrmError } from '@llm-nrm/core/record';

/** Deepest nesting of arrays and objects a reader accepts; real harness outputs stay under 20. */
export const MAX_JSON_DEPTH = 512;

/**
 * Throw FORMAT when a parsed JSON value nests deeper than `limit`. JSON.parse takes any depth, but
 * String() and JSON.stringify of such a value overflow the stack, so a reader would die of a
 * RangeError far from the input; this names the input instead. Iterative: no recursion itself.
 */
export function checkJsonDepth<T>(value: T, limit = MAX_JSON_DEPTH): T {
  if (value === null || typeof value !== 'object') return value;
  if (limit >= 3 && flat(value as object)) return value;
  const stack: [object, number][] = [[value as object, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > limit) throw new LlmNrmError('FORMAT', `JSON nested deeper than ${limit} levels`);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const x of children) if (x !== null && typeof x === 'object') stack.push([x as object, d + 1]);
  }
  return value;
}

/**
 * Whether a value is an object or array whose members are primitives or arrays of primitives (depth
 * at most 3: every tidy record), checked without allocating; the general walk handles the rest.
 */
function flat(v: object): boolean {
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && typeof x === 'object' && !flatArray(x as object)) return false;
    return true;
  }
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object' && !flatArray(x as object)) return false;
  }
  return true;
}

function flatArray(v: object): boolean {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (x !== null && typeof x === 'object') return false;
  return true;
}
