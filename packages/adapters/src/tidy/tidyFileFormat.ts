import { open } from 'node:fs/promises';
import { LlmNrmError } from '@llm-nrm/core/record';

/** Container of a tidy responses file. */
export type TidyFileFormat = 'jsonl' | 'arrow' | 'parquet';

/** Extensions that name each tidy container (a trailing `.gz` means gzip-compressed JSON Lines). */
const EXTENSIONS: readonly [RegExp, TidyFileFormat][] = [
  [/\.(jsonl|ndjson|json)(\.gz)?$/i, 'jsonl'],
  [/\.(arrow|feather|ipc|arrows)$/i, 'arrow'],
  [/\.parquet$/i, 'parquet'],
];

/** The tidy container named by a path's extension, or undefined when the extension says nothing. */
export function tidyFormatFromExtension(path: string): TidyFileFormat | undefined {
  for (const [re, f] of EXTENSIONS) if (re.test(path)) return f;
  return undefined;
}

/** The first `n` bytes of a file (fewer when it is shorter). */
export async function fileHead(path: string, n: number): Promise<Uint8Array> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  try {
    const buf = new Uint8Array(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** True when the bytes start with the gzip magic number. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** The container of a tidy file from its magic bytes: Parquet `PAR1`, Arrow `ARROW1` or an IPC stream, else JSON Lines. */
export function tidyFormatFromBytes(head: Uint8Array): TidyFileFormat {
  const ascii = String.fromCharCode(...head.subarray(0, 6));
  if (ascii.startsWith('PAR1')) return 'parquet';
  if (ascii === 'ARROW1') return 'arrow';
  // An Arrow IPC stream starts with the continuation marker 0xFFFFFFFF.
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xff && head[2] === 0xff && head[3] === 0xff) return 'arrow';
  return 'jsonl';
}

/** The container of a tidy file: by extension, else by its first bytes. */
export async function tidyFileFormat(path: string): Promise<TidyFileFormat> {
  return tidyFormatFromExtension(path) ?? tidyFormatFromBytes(await fileHead(path, 8));
}
