import type { ResponseRecord } from '../model/types.js';
import { IdNumbers } from './idNumbers.js';
import { sameTexts, statedOptions } from './parseResponseRecord.js';

/**
 * What to do with an item id that names different content in different records (two data sets
 * that both number their items from 0; a benchmark revised between runs): `split` gives each
 * version its own id (`<id>#<content hash>`), `majority` keeps the version most LLMs answered and
 * drops the others' records. Either way each such id is reported.
 */
export type ItemVersionPolicy = 'split' | 'majority';

/** One version of an item id: its content and how much of the data is on it. */
export interface ItemVersion {
  /** The id its records carry after resolution (`<id>#<hash>` under `split`). */
  id: string;
  nOptions: number | undefined;
  /** Undefined: its records give no key (key-free). */
  key: number | undefined;
  /** The first option text, cut to 60 characters, when the records give texts. */
  firstOption?: string;
  records: number;
  models: number;
  /** Under `majority`: whether this version was kept. */
  kept: boolean;
}

/** An item id found with more than one content. */
export interface ItemVersionConflict {
  item: string;
  versions: ItemVersion[];
}

export interface ResolvedItemVersions {
  /** The records, renamed or dropped; `index[t]` is the input position of `records[t]`. */
  records: ResponseRecord[];
  index: number[];
  conflicts: ItemVersionConflict[];
  /** Records dropped under `majority`. */
  dropped: number;
}

/** Whether every record of each id states its first record's content: then nothing is renamed or dropped. */
function singleContent(records: readonly ResponseRecord[]): boolean {
  const check = singleContentCheck();
  for (const r of records) if (!check(r)) return false;
  return true;
}

/** `singleContent` one record at a time: false from the first record whose id was seen with other content. */
export function singleContentCheck(): (record: ResponseRecord) => boolean {
  const numbers = new IdNumbers();
  const first: ResponseRecord[] = [];
  return (r) => {
    const n = numbers.number(r.item);
    const f = first[n];
    if (f === undefined) {
      first.push(r);
      return true;
    }
    return !(r.key !== f.key || statedOptions(r) !== statedOptions(f) || r.source?.docHash !== f.source?.docHash || !sameTexts(r.options, f.options));
  };
}

/** 32-bit FNV-1a of a string, as 6 base-36 characters: short content tags for ids. */
export function contentHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, '0').slice(-6);
}

/**
 * Tell apart items that share an id but not their content (option count, key and, where given,
 * option texts and `source.docHash`). A record without option texts joins the one texted version
 * with its count and key, if there is exactly one; otherwise it is a version of its own. Ids with a
 * single content are left untouched.
 */
export function resolveItemVersions(records: readonly ResponseRecord[], policy: ItemVersionPolicy = 'split'): ResolvedItemVersions {
  // The usual case, every id with one content, is told in one cheap pass.
  if (singleContent(records)) return { records: records.slice(), index: Array.from({ length: records.length }, (_, t) => t), conflicts: [], dropped: 0 };
  interface Version {
    sig: string;
    k: number | undefined;
    key: number | undefined;
    texts: string[] | undefined;
    rows: number[];
    models: Set<string>;
  }
  const byItem = new Map<string, Map<string, Version>>();
  const bare = new Map<string, number[]>();
  records.forEach((r, t) => {
    const k = statedOptions(r);
    if (r.options === undefined && r.source?.docHash === undefined) {
      const list = bare.get(r.item) ?? [];
      list.push(t);
      bare.set(r.item, list);
      return;
    }
    const sig = JSON.stringify(r.source?.docHash !== undefined ? [k, r.key, r.options, r.source.docHash] : [k, r.key, r.options]);
    let versions = byItem.get(r.item);
    if (versions === undefined) byItem.set(r.item, (versions = new Map()));
    let v = versions.get(sig);
    if (v === undefined) versions.set(sig, (v = { sig, k, key: r.key, texts: r.options, rows: [], models: new Set() }));
    v.rows.push(t);
    v.models.add(r.model);
  });
  // Records without texts join the one texted version with their count and key, if there is one.
  for (const [item, rows] of bare) {
    let versions = byItem.get(item);
    if (versions === undefined) byItem.set(item, (versions = new Map()));
    const texted = [...versions.values()];
    // Where a row lands depends only on its (option count, key): the last answer is reused for a run.
    let lastK: number | undefined = -1;
    let lastKey: number | undefined = -1;
    let lastV: Version | undefined;
    for (const t of rows) {
      const r = records[t]!;
      const k = statedOptions(r);
      if (lastV !== undefined && k === lastK && r.key === lastKey) {
        lastV.rows.push(t);
        lastV.models.add(r.model);
        continue;
      }
      const fits = texted.filter((v) => v.key === r.key && (k === undefined || v.k === k));
      let v: Version | undefined = fits.length === 1 ? fits[0] : undefined;
      if (v === undefined) {
        const sig = JSON.stringify([k, r.key, null]);
        v = versions.get(sig);
        // A count-less hard answer fits a bare version with its key.
        if (v === undefined && k === undefined) v = [...versions.values()].find((x) => x.texts === undefined && x.key === r.key);
        if (v === undefined) versions.set(sig, (v = { sig, k, key: r.key, texts: undefined, rows: [], models: new Set() }));
      }
      v.rows.push(t);
      v.models.add(r.model);
      lastK = k;
      lastKey = r.key;
      lastV = v;
    }
  }
  const rename = new Map<number, string>();
  const drop = new Uint8Array(records.length);
  const conflicts: ItemVersionConflict[] = [];
  for (const [item, versions] of byItem) {
    if (versions.size <= 1) continue;
    const list = [...versions.values()].sort((a, b) => b.models.size - a.models.size || b.rows.length - a.rows.length || (a.sig < b.sig ? -1 : 1));
    const out: ItemVersion[] = [];
    list.forEach((v, i) => {
      const kept = policy === 'split' || i === 0;
      const id = policy === 'split' ? `${item}#${contentHash(v.sig)}` : item;
      for (const t of v.rows) {
        if (!kept) drop[t] = 1;
        else if (id !== item) rename.set(t, id);
      }
      const version: ItemVersion = { id, nOptions: v.k, key: v.key, records: v.rows.length, models: v.models.size, kept };
      if (v.texts?.[0] !== undefined) version.firstOption = v.texts[0].slice(0, 60);
      out.push(version);
    });
    conflicts.push({ item, versions: out });
  }
  conflicts.sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
  const outRecords: ResponseRecord[] = [];
  const index: number[] = [];
  let dropped = 0;
  records.forEach((r, t) => {
    if (drop[t]) {
      dropped++;
      return;
    }
    const id = rename.get(t);
    outRecords.push(id === undefined ? r : { ...r, item: id });
    index.push(t);
  });
  return { records: outRecords, index, conflicts, dropped };
}

/** Conflicts as short lines for a report: `winogrande/0: 2 versions (3 LLMs "Sarah..." ...)`. */
export function describeItemVersions(conflicts: readonly ItemVersionConflict[], limit = 10): string[] {
  const lines = conflicts
    .slice(0, limit)
    .map(
      (c) =>
        `${c.item}: ${c.versions.length} versions: ` +
        c.versions
          .map(
            (v) =>
              `${v.id}${v.kept ? '' : ' (dropped)'} [${v.nOptions ?? '?'} options, key ${v.key ?? 'none'}${v.firstOption !== undefined ? `, ${JSON.stringify(v.firstOption.slice(0, 30))}` : ''}; ${v.models} LLMs, ${v.records} records]`,
          )
          .join(', '),
    );
  if (conflicts.length > limit) lines.push(`... and ${conflicts.length - limit} more ids`);
  return lines;
}
