import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { itemContentSha256, recordContentSha256 } from './itemContent.js';
import { sha256Hex } from '../internal/sha256.js';

describe('sha256Hex / itemContentSha256', () => {
  it('matches node:crypto on empty, block-boundary, multi-block and non-ASCII text', () => {
    const texts = ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'x'.repeat(1000), 'Frage: Größe? 問題 😀\n\t"q"'];
    for (const t of texts) expect(sha256Hex(t)).toBe(createHash('sha256').update(t, 'utf8').digest('hex'));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the JSON pair, so the split between prompt and continuations matters', () => {
    expect(itemContentSha256('Q\nAnswer:', [' A', ' B'])).toBe(createHash('sha256').update('["Q\\nAnswer:",[" A"," B"]]').digest('hex'));
    expect(itemContentSha256('Q', [' A', ' B'])).not.toBe(itemContentSha256('Q ', ['A', ' B']));
  });

  it('hashes a multiple-input item as [contexts, continuations], apart from any single-prompt item', () => {
    const ctx = ['The cat', 'The dog'];
    expect(itemContentSha256(ctx, [' ran.', ' ran.'])).toBe(createHash('sha256').update('[["The cat","The dog"],[" ran."," ran."]]').digest('hex'));
    expect(itemContentSha256(ctx, [' ran.', ' ran.'])).not.toBe(itemContentSha256('["The cat","The dog"]', [' ran.', ' ran.']));
    expect(recordContentSha256({ contexts: ctx, continuations: [' ran.', ' ran.'] })).toBe(itemContentSha256(ctx, [' ran.', ' ran.']));
    expect(recordContentSha256({ prompt: 'Q', continuations: [' A', ' B'] })).toBe(itemContentSha256('Q', [' A', ' B']));
    expect(recordContentSha256({ prompt: 'Q' })).toBeUndefined();
  });
});
