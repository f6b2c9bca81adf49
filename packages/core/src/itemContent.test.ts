import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { itemContentSha256 } from './itemContent.js';
import { sha256Hex } from './internal/sha256.js';

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
});
