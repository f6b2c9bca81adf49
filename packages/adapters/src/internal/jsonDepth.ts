import { LlmNrmError } from '@llm-nrm/core';

/** Deepest nesting of arrays and objects a reader accepts; real harness outputs stay under 20. */
export const MAX_JSON_DEPTH = 512;

/**
 * Throw FORMAT when a parsed JSON value nests deeper than `limit`. JSON.parse takes any depth, but
 * String() and JSON.stringify of such a value overflow the stack, so a reader would die of a
 * RangeError far from the input; this names the input instead. Iterative: no recursion itself.
 */
export function checkJsonDepth<T>(value: T, limit = MAX_JSON_DEPTH): T {
  if (value === null || typeof value !== 'object') return value;
  const stack: [object, number][] = [[value as object, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > limit) throw new LlmNrmError('FORMAT', `JSON nested deeper than ${limit} levels`);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const x of children) if (x !== null && typeof x === 'object') stack.push([x as object, d + 1]);
  }
  return value;
}
