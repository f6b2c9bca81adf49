/**
 * Numbers and booleans as lm-eval writes them: real values (v0.4.0-0.4.2, write_out) or Python
 * `str()` of them (v0.4.3+: "-1.5", "True", "-inf", "nan"). Returns NaN when `v` is no number.
 */
export function leafNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const s = v.trim();
    if (s === '') return NaN;
    const n = Number(s);
    if (!Number.isNaN(n)) return n;
    switch (s.toLowerCase()) {
      case '-inf':
      case '-infinity':
        return -Infinity;
      case 'inf':
      case '+inf':
      case 'infinity':
        return Infinity;
      default:
        return NaN;
    }
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return NaN;
}

/** A boolean leaf (`true`, `"True"`, `1`); undefined when it is none. */
export function leafBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (v === 'True' || v === 'true') return true;
    if (v === 'False' || v === 'false') return false;
  }
  if (v === 1 || v === 0) return v === 1;
  return undefined;
}

/** Number of Unicode code points (Python's `len(str)`, which lm-eval's acc_norm divides by). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** UTF-8 byte length (lm-eval's acc_bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
