/** Letter label of displayed position `i`: A..Z (the harnesses here never show more than 26 options). */
export function displayLetter(i: number): string {
  return String.fromCharCode(65 + i);
}

/**
 * Option texts of the last `A) text\nB) text...` block in a prompt (OpenAI evals `make_abc`, Inspect
 * `multiple_choice`), in displayed order, or null when there is no block of at least two options.
 * Labels must run A, B, C... in order; an option may span lines, except the last, which ends at its
 * line end (prompts often go on with `Answer:` after the block).
 */
export function parseOptionBlock(text: string): string[] | null {
  const starts = [...text.matchAll(/(?:^|\n)A\) /g)];
  for (let s = starts.length - 1; s >= 0; s--) {
    const m = starts[s]!;
    let pos = m.index! + m[0].length;
    const out: string[] = [];
    for (let i = 1; i <= 26; i++) {
      const marker = `\n${displayLetter(i)}) `;
      const next = i < 26 ? text.indexOf(marker, pos) : -1;
      if (next < 0) {
        const end = text.indexOf('\n', pos);
        out.push(text.slice(pos, end < 0 ? text.length : end).trim());
        break;
      }
      out.push(text.slice(pos, next).trim());
      pos = next + marker.length;
    }
    if (out.length >= 2) return out;
  }
  return null;
}

/**
 * Displayed position of each content option, matching texts (content order `content`, displayed order
 * `shown`); repeated texts are matched in order. Null when the two lists are not a permutation.
 */
export function positionsByText(content: readonly string[], shown: readonly string[]): number[] | null {
  if (content.length !== shown.length) return null;
  const used = new Array<boolean>(shown.length).fill(false);
  const pos: number[] = [];
  for (const t of content) {
    const want = t.trim();
    let found = -1;
    for (let d = 0; d < shown.length; d++) {
      if (!used[d] && shown[d]!.trim() === want) {
        found = d;
        break;
      }
    }
    if (found < 0) return null;
    used[found] = true;
    pos.push(found);
  }
  return pos;
}

/** True when `pos` is 0, 1, 2, ... */
export function isIdentity(pos: readonly number[]): boolean {
  return pos.every((p, i) => p === i);
}
