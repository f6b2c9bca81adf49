/**
 * Split a text stream into physical lines (without `\n` or a trailing `\r`). Pieces of a line that
 * spans chunks are kept in a list and joined once, so tiny chunks cost O(n), not O(n^2).
 */
export async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let carry: string[] = [];
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      let line = chunk.slice(start, nl);
      if (carry.length > 0) {
        carry.push(line);
        line = carry.join('');
        carry = [];
      }
      yield line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(start === 0 ? chunk : chunk.slice(start));
  }
  if (carry.length > 0) {
    const line = carry.join('');
    yield line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
  }
}
