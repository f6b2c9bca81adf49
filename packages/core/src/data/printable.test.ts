// printable: what a terminal or page shows of untrusted text (issue 27: a model id with U+202E
// showed as `...exe.txt`). Compared with the escapes written out by hand.
import { describe, expect, it } from 'vitest';
import { printable } from './printable.js';

describe('printable', () => {
  it('escapes bidi controls visibly, so an id cannot reorder what follows', () => {
    const id = 'org/phi4 "quoted" \u202etxt.exe';
    expect(printable(id)).toBe('org/phi4 "quoted" \\u202etxt.exe');
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      expect(printable(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`);
    }
  });

  it('escapes C0 and C1 controls (terminal escapes, newlines in an id), keeps newlines only when asked', () => {
    expect(printable('m\u001b[2Jx')).toBe('m\\u001b[2Jx');
    expect(printable('a\nb\tc\u0000\u007f\u0085')).toBe('a\\u000ab\\u0009c\\u0000\\u007f\\u0085');
    expect(printable('line 1\nline\u202e 2\tx', { keepNewlines: true })).toBe('line 1\nline\\u202e 2\tx');
    expect(printable('a\rb', { keepNewlines: true })).toBe('a\\u000db');
  });

  it('leaves ordinary text as it is, right-to-left letters and emoji included', () => {
    for (const t of ['gpt-4o', 'Qwen/Qwen2.5-7B', 'ما هو', 'שלום', 'naïve 🤖', '']) expect(printable(t)).toBe(t);
  });
});
