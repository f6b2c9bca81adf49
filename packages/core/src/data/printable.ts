/**
 * Text from outside (model ids, item texts, file names) made safe to show in a terminal or a page:
 * control and bidirectional characters are escaped visibly as `\uXXXX` (`org/phi4 \u202etxt.exe`
 * must not show as `org/phi4 exe.txt`): C0 (newline and tab unless `keepNewlines`), DEL and C1,
 * U+061C, U+200E-200F, U+2028-2029, U+202A-202E and U+2066-2069. Everything else is left as it is.
 */
export function printable(text: string, options: { keepNewlines?: boolean } = {}): string {
  const re = options.keepNewlines ? UNSAFE_KEEP_NEWLINES : UNSAFE;
  re.lastIndex = 0;
  if (!re.test(text)) return text;
  re.lastIndex = 0;
  return text.replace(re, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// One character class for both: `keepNewlines` leaves \n (and \t, which lays out tables) alone.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_KEEP_NEWLINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
