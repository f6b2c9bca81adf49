import { describeValue } from '@llm-nrm/core';

/** One top-level element of a streamed JSON array, or a problem found while scanning. */
export type ArrayPiece = { text: string; line: number; endLine: number } | { error: string; line: number };

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;
const COMMA = 44;

/**
 * Stream the elements of one top-level JSON array (old `--write_out` files and v0.4.0-0.4.2
 * samples, which are pretty-printed arrays of any size) without holding the array: a small state
 * machine tracks strings and nesting depth and hands each complete element's text (with its first
 * line) to the caller. Element pieces spanning chunks are joined once (tiny chunks stay linear).
 */
export async function* jsonArrayElements(chunks: AsyncIterable<string>): AsyncGenerator<ArrayPiece> {
  // phase 0: before '[', 1: between elements, 2: inside an element, 3: after ']'
  let phase = 0;
  let depth = 0;
  let inStr = false;
  let esc = false;
  let line = 1;
  let startLine = 0;
  let pieces: string[] = [];
  let reportedTrailing = false;
  for await (const chunk of chunks) {
    let segStart = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c === NEWLINE) line++;
      if (phase === 2) {
        if (inStr) {
          if (esc) esc = false;
          else if (c === BACKSLASH) esc = true;
          else if (c === QUOTE) inStr = false;
          continue;
        }
        if (c === QUOTE) inStr = true;
        else if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) {
          if (depth === 0) {
            // ']' closing the array right after a scalar element
            pieces.push(chunk.slice(segStart, i));
            yield { text: pieces.join('').trim(), line: startLine, endLine: line };
            pieces = [];
            phase = 3;
            continue;
          }
          depth--;
          if (depth === 0) {
            pieces.push(chunk.slice(segStart, i + 1));
            yield { text: pieces.join(''), line: startLine, endLine: line };
            pieces = [];
            phase = 1;
          }
        } else if (c === COMMA && depth === 0) {
          pieces.push(chunk.slice(segStart, i));
          yield { text: pieces.join('').trim(), line: startLine, endLine: line };
          pieces = [];
          phase = 1;
        }
        continue;
      }
      if (c === 32 || c === NEWLINE || c === 13 || c === 9 || c === 0xfeff) continue;
      if (phase === 0) {
        if (c === 91) phase = 1;
        else {
          yield { error: `not a JSON array: starts with ${describeValue(chunk[i])}`, line };
          return;
        }
      } else if (phase === 1) {
        if (c === COMMA) continue;
        if (c === 93) {
          phase = 3;
          continue;
        }
        phase = 2;
        startLine = line;
        segStart = i;
        depth = 0;
        if (c === QUOTE) inStr = true;
        else if (c === 123 || c === 91) depth = 1;
      } else if (!reportedTrailing) {
        reportedTrailing = true;
        yield { error: `unexpected data after the closing ']': ${describeValue(chunk.slice(i, i + 20))}`, line };
      }
    }
    if (phase === 2) pieces.push(segStart === 0 ? chunk : chunk.slice(segStart));
  }
  if (phase === 2) yield { error: `JSON array cut off: element starting at line ${startLine} is not closed (truncated file?)`, line: startLine };
  else if (phase < 3) yield { error: "JSON array cut off: no closing ']' (truncated file?)", line };
}
