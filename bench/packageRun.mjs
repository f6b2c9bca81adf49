// An LLM's recorded answers put through a published tiny package the way a user's run goes: written
// as lm-eval samples with the package's prompts, then read back by `llm-nrm score`. Shared by the
// through-files benches (tiny-study.mjs, tiny-accuracy-files.mjs).
import { readFileSync } from 'node:fs';
import { tinyRunRecords } from '@llm-nrm/analysis';
import { writeLmEvalHarness } from '@llm-nrm/adapters';

/** A published package's items (id -> its items.jsonl row) and its lm-eval task name. */
export function packageItems(pkg) {
  const items = new Map(
    readFileSync(`${pkg}/items.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((it) => [it.item_id, it]),
  );
  return { items, task: JSON.parse(readFileSync(`${pkg}/bank.json`, 'utf8')).task };
}

/**
 * `held`'s answers to the items `ids` (one presentation each) as lm-eval samples of `task` in `out`
 * (with the package's prompts where `items` is given), scored by `llm-nrm score <target> <out>`
 * through `cli` (args -> stdout): the score's `llms`.
 */
export async function scoreThroughLmEval(cli, target, held, ids, task, items, out) {
  const recs = tinyRunRecords(held, ids).map((r) => {
    const it = items?.get(r.item);
    return it ? { ...r, prompt: it.prompt, continuations: it.continuations } : r;
  });
  await writeLmEvalHarness(recs, out, { tinyTask: task, date: '2026-01-01T00-00-00.000001' });
  return JSON.parse(await cli('score', target, out, '--json', '-q')).llms;
}
