// The progress lines of long commands (issue 28: a leaderboard-size fit reads for minutes, then
// fits for more): what is done, its share where known, and the time left at the rate so far.
import type { ExpectedRecords } from '@llm-nrm/adapters';
import type { OptimizeProgress } from '@llm-nrm/core';
import { fmt } from './output.js';

export { fitProgressLine, fitProgressLines, readProgressLine, timeLeft };

/** "40 s", "3 min", "1.2 h". */
function span(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** ", about 3 min left" at the rate so far, or '' when it cannot be told yet. */
function timeLeft(done: number, total: number, seconds: number): string {
  if (!(done > 0) || !(total > done) || !(seconds >= 2)) return '';
  return `, about ${span(((total - done) / done) * seconds)} left`;
}

/** "read: 12,000,000 of about 45,800,000 records (26%), 180 s, about 8 min left". */
function readProgressLine(records: number, expected: ExpectedRecords | undefined, seconds: number, label = 'read'): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (expected === undefined || !(expected.records > 0)) return `${label}: ${n(records)} records, ${span(seconds)}`;
  const total = Math.max(expected.records, records);
  const share = Math.min(99, Math.floor((100 * records) / total));
  return `${label}: ${n(records)} of ${expected.exact ? '' : 'about '}${n(total)} records (${share}%), ${span(seconds)}${timeLeft(records, total, seconds)}`;
}

/**
 * A fit's progress line: iteration, passes, loss and, for L-BFGS, the estimated distance to the
 * optimum against the stop, with the time left from its recent fall. The distance (the Newton
 * decrement in SE units) falls about geometrically once the fit is near, so the time left is
 * log(distance / stop) over the fall of its log per second since `since` (an earlier report):
 * a rough guide, said as "about".
 */
function fitProgressLine(label: string, p: OptimizeProgress, since: { seconds: number; distance: number } | undefined): string {
  const base = `${label}: iteration ${p.iteration}, ${p.passes} passes, loss ${fmt(p.loss)}, ${span(p.seconds)}`;
  const stop = p.stopDistance;
  if (p.distance === undefined || !Number.isFinite(p.distance) || stop === undefined || !(stop > 0)) return base;
  let left = '';
  if (since !== undefined && p.distance > stop && since.distance > p.distance && p.seconds - since.seconds >= 2) {
    const rate = Math.log(since.distance / p.distance) / (p.seconds - since.seconds);
    left = `, about ${span(Math.log(p.distance / stop) / rate)} left`;
  }
  return `${base}, distance ${p.distance.toPrecision(2)} SE (stops below ${stop})${left}`;
}

/**
 * fitProgressLine for each report of one command's fits: the distance's fall is read over the last
 * 30 s of reports, and a new run (the twin's refit, Adam after L-BFGS) starts its own window; the
 * twin's refit is named as the SEs' part of the fit, not a second fit.
 */
function fitProgressLines(label: string): (p: OptimizeProgress & { phase?: string }) => string {
  const seen: { seconds: number; distance: number }[] = [];
  return (p) => {
    if (seen.length > 0 && p.seconds < seen[seen.length - 1]!.seconds) seen.length = 0;
    if (p.distance !== undefined && Number.isFinite(p.distance)) seen.push({ seconds: p.seconds, distance: p.distance });
    while (seen.length > 1 && p.seconds - seen[0]!.seconds > 30) seen.shift();
    return fitProgressLine(p.phase === 'twin' ? `${label}: standard errors (the twin's refit)` : label, p, seen.length > 1 ? seen[0] : undefined);
  };
}
