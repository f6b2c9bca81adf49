// LlmNrmError's location prefix: said once (issue 27 showed `x.txt:6: x.txt:6: ...` where an error
// was re-thrown with its own message and location).
import { describe, expect, it } from 'vitest';
import { LlmNrmError } from './errors.js';
import { checkFinite } from './model/objective.js';

describe('LlmNrmError', () => {
  it('prefixes the file and line once', () => {
    const e = new LlmNrmError('FORMAT', 'bad record', { file: 'x.txt', line: 6 });
    expect(e.message).toBe('x.txt:6: bad record');
    const again = new LlmNrmError('FORMAT', e.message, { file: 'x.txt', line: 6, cause: e });
    expect(again.message).toBe('x.txt:6: bad record');
    expect(new LlmNrmError('IO', e.message, { file: 'y.txt' }).message).toBe('y.txt: x.txt:6: bad record');
    expect(new LlmNrmError('IO', 'no line', { line: 3 }).message).toBe('line 3: no line');
  });
});

describe('checkFinite', () => {
  it('names no CLI option: fit and score each add advice in terms of their own', () => {
    expect(() => checkFinite(NaN)).toThrow(/^objective became NaN; the fit diverged or the input is degenerate \(check it for extreme values\)$/);
    expect(checkFinite(1.5)).toBe(1.5);
  });
});
