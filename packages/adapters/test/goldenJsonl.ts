// Golden-file helper for the reader tests. A golden file is JSON Lines: the first 50 records, then one
// summary line {summary: {count, hard, soft, missing, checksum}, skipped, notes} (report paths made
// relative to the fixtures folder). `GENERATE_GOLDEN=1` rewrites the goldens; on a mismatch the actual
// output is written beside the golden as `<name>-changed.jsonl`, so the two can be diffed.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResponseRecord } from '@llm-nrm/core';
import { fixturesDir } from '@llm-nrm/tooling/test';
import type { ReadReport } from '../src/reader.js';

export const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden');

const KEEP = 50;

/** The golden text of one read: records (first 50) and a summary line. */
export function goldenText(records: ResponseRecord[], report: ReadReport): string {
  const lines = records.map((r) => JSON.stringify(r));
  const rel = (s: string) => s.split(fixturesDir).join('<fixtures>');
  const summary = {
    summary: {
      count: records.length,
      hard: records.filter((r) => r.choice !== undefined && r.choice !== null).length,
      soft: records.filter((r) => r.probs !== undefined || r.logprobs !== undefined).length,
      missing: records.filter((r) => r.choice === null).length,
      checksum: createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16),
    },
    skipped: report.skipped.map((s) => ({ ...s, file: rel(s.file), reason: rel(s.reason) })),
    notes: report.notes.map(rel),
  };
  return [...lines.slice(0, KEEP), JSON.stringify(summary)].join('\n') + '\n';
}

/**
 * Compare `actual` with `<root>/<reader>/<name>.jsonl` (root: the checked-in goldens). Returns null when they match (or were
 * regenerated), else a message naming the `-changed` file written for inspection.
 */
export function compareGolden(reader: string, name: string, actual: string, root = goldenDir): string | null {
  const dir = join(root, reader);
  const path = join(dir, `${name}.jsonl`);
  const changed = join(dir, `${name}-changed.jsonl`);
  if (process.env.GENERATE_GOLDEN === '1') {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, actual);
    rmSync(changed, { force: true });
    return null;
  }
  const expected = existsSync(path) ? readFileSync(path, 'utf8') : null;
  if (expected === actual) {
    rmSync(changed, { force: true });
    return null;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(changed, actual);
  return expected === null
    ? `no golden file ${path}: run with GENERATE_GOLDEN=1 (output written to ${changed})`
    : `output differs from ${path}; see ${changed}`;
}
