import { describe, expect, it } from 'vitest';
import { fitProgressLine, readProgressLine, timeLeft } from './progressLines.js';

describe('progress lines', () => {
  it('read: the share and time left from the rate so far, "about" where the count is estimated', () => {
    expect(readProgressLine(12_000_000, { records: 48_000_000, exact: true }, 120)).toBe(
      'read: 12,000,000 of 48,000,000 records (25%), 2 min, about 6 min left',
    );
    expect(readProgressLine(500, { records: 1000, exact: false }, 10)).toBe('read: 500 of about 1,000 records (50%), 10 s, about 10 s left');
    // An estimate passed by the read: the share stays below 100% and the time left is not invented.
    expect(readProgressLine(1200, { records: 1000, exact: false }, 10)).toBe('read: 1,200 of about 1,200 records (99%), 10 s');
    expect(readProgressLine(1200, undefined, 100)).toBe('read: 1,200 records, 2 min');
  });

  it('time left needs a start: nothing before 2 s or before the first record', () => {
    expect(timeLeft(0, 10, 100)).toBe('');
    expect(timeLeft(5, 10, 1)).toBe('');
    expect(timeLeft(1, 10, 600)).toBe(', about 1.5 h left');
  });

  it('fit: the distance against the stop, and the time left from its geometric fall', () => {
    const p = { iteration: 40, passes: 60, loss: 1234.56789, seconds: 60, distance: 0.1, stopDistance: 0.01 };
    // From 1 SE at 30 s to 0.1 SE at 60 s: a factor 10 per 30 s, so 10 more to go takes 30 s.
    expect(fitProgressLine('fit', p, { seconds: 30, distance: 1 })).toBe(
      'fit: iteration 40, 60 passes, loss 1234.6, 60 s, distance 0.10 SE (stops below 0.01), about 30 s left',
    );
    // No earlier report, or a distance that rose: no time left.
    expect(fitProgressLine('fit', p, undefined)).toBe('fit: iteration 40, 60 passes, loss 1234.6, 60 s, distance 0.10 SE (stops below 0.01)');
    expect(fitProgressLine('fit', p, { seconds: 30, distance: 0.05 })).not.toContain('left');
    // Adam (no distance) keeps the plain line.
    expect(fitProgressLine('score', { iteration: 3, passes: 3, loss: 2, seconds: 1 }, undefined)).toBe('score: iteration 3, 3 passes, loss 2, 1 s');
  });
});
