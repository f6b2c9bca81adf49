import { LlmNrmError } from '../errors.js';

/**
 * Throws NO_KEY when any of `items` has no key (key-free fitting: its `key` is only the fleet's
 * anchor, consensusKeys.ts), naming how many, the first five, and `instead` (what to use instead). Every
 * keyed computation (binary models, accuracy, the information split, wrong-answers ability, keyed
 * item flags) calls it rather than reading an anchor as a key.
 */
export function requireKeys(items: readonly { id: string; keyFree?: true }[], what: string, instead: string): void {
  let n = 0;
  const named: string[] = [];
  for (const it of items) {
    if (it.keyFree !== true) continue;
    n++;
    if (named.length < 5) named.push(JSON.stringify(it.id));
  }
  if (n === 0) return;
  const which = n === 1 ? named[0]! : `${n > named.length ? 'first ' : ''}${named.join(', ')}`;
  throw new LlmNrmError('NO_KEY', `${what} needs a key, but the bank has no key for ${n} of ${items.length} items (${which}): ${instead}`);
}
