import type { DuplicateRows, RecordSource, ResponseRecord } from '@llm-nrm/core';

export { duplicateRowsWarning };

/**
 * The one line `convert`, `fit` and `score` say about repeated (model, item, presentation) rows:
 * kept as replicates (epochs are legitimate), but a file concatenated twice or a tiny run
 * logged twice looks the same, so it is always said. With the records and their sources, the
 * file and line of the first repeat are named.
 */
function duplicateRowsWarning(
  duplicates: DuplicateRows,
  read?: { records: readonly ResponseRecord[]; sources: readonly (RecordSource | undefined)[] },
): string | null {
  const ex = duplicates.examples[0];
  if (duplicates.count === 0 || ex === undefined) return null;
  let where = '';
  if (read !== undefined) {
    let seen = 0;
    const at = read.records.findIndex((r) => r.model === ex.model && r.item === ex.item && ++seen === 2);
    const src = at >= 0 ? read.sources[at] : undefined;
    if (src?.file !== undefined) where = `; repeated at ${src.file}${src.line !== undefined ? `:${src.line}` : ''}`;
  }
  return `${duplicates.count} repeated (model, item, presentation) rows, kept as replicates (e.g. ${ex.model} on ${ex.item}: ${ex.rows} rows${where})`;
}
