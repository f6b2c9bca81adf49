import { stat } from 'node:fs/promises';
import { parquetRowGroups } from './internal/parquetRows.js';
import { fileHead, isGzip, tidyFileFormat } from './tidyFileFormat.js';

/** How many records some inputs hold, for a progress line's share and time left. */
export interface ExpectedRecords {
  records: number;
  /** True when counted (Parquet's footer), false when estimated (JSON Lines: size over a sampled line length). */
  exact: boolean;
}

/** Bytes of a JSON Lines file sampled for its mean line length. */
const SAMPLE = 1 << 20;

/**
 * The records of tidy files, counted or estimated without reading them: Parquet from its footer,
 * plain JSON Lines from its size over the mean length of the lines in its first MiB. Undefined
 * where neither applies (a folder, harness output, gzip, Arrow, standard input), and the caller
 * shows progress without a share.
 */
export async function expectedRecords(paths: readonly string[]): Promise<ExpectedRecords | undefined> {
  let records = 0;
  let exact = true;
  for (const path of paths) {
    const st = await stat(path).catch(() => undefined);
    if (st === undefined || !st.isFile()) return undefined;
    const format = await tidyFileFormat(path).catch(() => undefined);
    if (format === 'parquet') {
      // The reader's own footer read (a file that is not a tidy table gives no count; the read says why).
      const groups = await parquetRowGroups(path).catch(() => undefined);
      if (groups === undefined) return undefined;
      for (const n of groups) records += n;
    } else if (format === 'jsonl') {
      const head = await fileHead(path, Math.min(SAMPLE, st.size));
      if (isGzip(head)) return undefined;
      let lines = 0;
      let last = -1;
      for (let i = 0; i < head.length; i++)
        if (head[i] === 10) {
          lines++;
          last = i;
        }
      if (lines === 0) return undefined;
      records += Math.round(st.size / ((last + 1) / lines));
      exact = false;
    } else return undefined;
  }
  return { records, exact };
}
