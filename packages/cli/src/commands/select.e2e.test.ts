// `llm-nrm select` / `report` on the real NAEP fixture (18 LLMs x 297 items x 4 rotations): the items
// `report` flags stay out of selection unless --include-flagged (issue 30).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';
import { SELECTION_FLAGS } from '@llm-nrm/analysis';

const tmp = tempDir('llm-nrm-cli-select-naep-');
afterAll(() => tmp.cleanup());

describe('select on NAEP', () => {
  it('leaves the items report flags as possible wrong keys out of the 41, and --include-flagged keeps them eligible', async () => {
    const bundle = join(tmp.dir, 'naep.json');
    expect((await runCli(['fit', fixture('response-matrices/mainlp-llm-psychometrics'), '-o', bundle, '-q'])).code).toBe(0);
    const report = await runCli(['report', bundle, '--json']);
    expect(report.code).toBe(0);
    const suspect = new Set(
      (JSON.parse(report.out).flagged as { id: string; flags: string[] }[])
        .filter((q) => q.flags.some((f) => (SELECTION_FLAGS as readonly string[]).includes(f)))
        .map((q) => q.id),
    );
    expect(suspect.size).toBeGreaterThan(0);
    const plain = await runCli(['select', bundle, '--items', '41', '--json', '-q']);
    expect(plain.code).toBe(0);
    const sel = JSON.parse(plain.out) as { items: string[]; leftOut: { id: string }[] };
    expect(sel.items).toHaveLength(41);
    expect(sel.items.filter((id) => suspect.has(id))).toEqual([]);
    expect(new Set(sel.leftOut.map((l) => l.id))).toEqual(suspect);
    const all = await runCli(['select', bundle, '--items', '41', '--include-flagged', '--json', '-q']);
    const withFlagged = JSON.parse(all.out) as { items: string[]; leftOut: unknown[] };
    expect(withFlagged.leftOut).toEqual([]);
    // Flagged items look informative: the unrestricted selection takes some of them.
    expect(withFlagged.items.filter((id) => suspect.has(id)).length).toBeGreaterThan(0);
  }, 600_000);
});
