import { LlmNrmError } from '@llm-nrm/core';

/** An external ranking: model ids and their scores (higher = better), in file order. */
export interface Ranking {
  models: string[];
  scores: Float64Array;
  /** The 1-based line of each model in the file (parseRanking fills it), for messages. */
  lines?: number[];
}

/**
 * Parse an external ranking CSV `model,score` (e.g. Arena Elo) from its text. A first line whose
 * score field is not a number is a header. Fields may be double-quoted ("a, b" and "" escapes);
 * blank lines are skipped; extra columns are ignored. Errors name the line and value.
 */
export function parseRanking(text: string, file?: string): Ranking {
  const models: string[] = [];
  const scores: number[] = [];
  const rows: number[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let ln = 0; ln < lines.length; ln++) {
    const raw = lines[ln]!;
    if (raw.trim() === '') continue;
    const where = { ...(file !== undefined ? { file } : {}), line: ln + 1 };
    const fields = splitCsvLine(raw, where);
    if (fields.length < 2) throw new LlmNrmError('FORMAT', `expected model,score, got ${JSON.stringify(raw)}`, where);
    const model = fields[0]!.trim();
    const scoreText = fields[1]!.trim();
    const score = scoreText === '' ? NaN : Number(scoreText);
    if (Number.isNaN(score) && models.length === 0 && scores.length === 0 && ln === firstNonBlank(lines)) continue; // header
    if (!Number.isFinite(score)) throw new LlmNrmError('FORMAT', `invalid score: ${JSON.stringify(fields[1])}`, where);
    if (model === '') throw new LlmNrmError('FORMAT', 'empty model id', where);
    if (seen.has(model)) throw new LlmNrmError('DUPLICATE', `duplicate model in ranking: ${JSON.stringify(model)}`, where);
    seen.add(model);
    models.push(model);
    scores.push(score);
    rows.push(ln + 1);
  }
  // A ranking of nothing would report agreement over no LLM as if it had been checked.
  if (models.length === 0) {
    throw new LlmNrmError('EMPTY', text.trim() === '' ? 'the file is empty: no model,score rows' : 'no model,score rows (only a header)', {
      ...(file !== undefined ? { file } : {}),
    });
  }
  return { models, scores: Float64Array.from(scores), lines: rows };
}

function firstNonBlank(lines: string[]): number {
  for (let i = 0; i < lines.length; i++) if (lines[i]!.trim() !== '') return i;
  return -1;
}

function splitCsvLine(line: string, where: { file?: string; line: number }): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  let quoted = false;
  while (i < line.length) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          cur += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
    i++;
  }
  if (quoted) throw new LlmNrmError('FORMAT', `unterminated quote: ${JSON.stringify(line)}`, where);
  out.push(cur);
  return out;
}
