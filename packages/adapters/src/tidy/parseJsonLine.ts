import { checkJsonDepth } from '../internal/jsonDepth.js';

/**
 * JSON.parse, falling back to reading the bare `NaN`, `Infinity` and `-Infinity` tokens that
 * Python's `json.dumps` writes (invalid JSON, common in the wild) as the strings `"NaN"`,
 * `"Infinity"`, `"-Infinity"`, so that validation can name them instead of failing on syntax.
 * Throws the original SyntaxError when the line is malformed for another reason.
 */
export function parseJsonLine(line: string): unknown {
  try {
    return checkJsonDepth(JSON.parse(line) as unknown);
  } catch (e) {
    if (!/NaN|Infinity/.test(line)) throw e;
    try {
      return checkJsonDepth(JSON.parse(quoteBareNonFinite(line)) as unknown);
    } catch {
      throw e;
    }
  }
}

/** Quote bare NaN / Infinity / -Infinity tokens outside strings. */
function quoteBareNonFinite(s: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += s[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const token = s.startsWith('-Infinity', i) ? '-Infinity' : s.startsWith('Infinity', i) ? 'Infinity' : s.startsWith('NaN', i) ? 'NaN' : '';
    if (token !== '') {
      out += `"${token}"`;
      i += token.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}
