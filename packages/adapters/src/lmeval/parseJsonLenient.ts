import { checkJsonDepth } from '../internal/jsonDepth.js';

/**
 * JSON.parse that also accepts the bare `NaN`, `Infinity` and `-Infinity` tokens Python's json
 * module writes (old lm-eval dumps): they become the strings "NaN", "Infinity", "-Infinity", which
 * the number readers understand. The rewrite runs only after a plain parse fails, so valid JSON
 * pays nothing.
 */
export function parseJsonLenient(text: string): unknown {
  try {
    return checkJsonDepth(JSON.parse(text) as unknown);
  } catch (e) {
    if (!/NaN|Infinity/.test(text)) throw e;
    const fixed = quoteNonFinite(text);
    if (fixed === text) throw e;
    try {
      return checkJsonDepth(JSON.parse(fixed) as unknown);
    } catch {
      throw e;
    }
  }
}

function quoteNonFinite(text: string): string {
  const out: string[] = [];
  let last = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inStr) {
      if (c === 92) i++;
      else if (c === 34) inStr = false;
      continue;
    }
    if (c === 34) {
      inStr = true;
      continue;
    }
    let tok = '';
    if (c === 78 && text.startsWith('NaN', i)) tok = 'NaN';
    else if (c === 73 && text.startsWith('Infinity', i)) tok = 'Infinity';
    else if (c === 45 && text.startsWith('-Infinity', i)) tok = '-Infinity';
    if (tok !== '') {
      out.push(text.slice(last, i), `"${tok}"`);
      i += tok.length - 1;
      last = i + 1;
    }
  }
  out.push(text.slice(last));
  return out.join('');
}
