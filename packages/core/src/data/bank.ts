import { LlmNrmError } from '../errors.js';
import { BankCells } from './bankCells.js';
import { consensusKeys } from './consensusKeys.js';
import { recordContentSha256 } from './itemContent.js';
import { MAX_OPTIONS, parseResponseRecord, sameTexts, statedOptions } from '../record/parseResponseRecord.js';
import { argmaxAt } from '../internal/argmaxAt.js';
import type { ItemSpec, RecordSource, ResponseRecord } from '../model/types.js';

export { MAX_OPTIONS, argmaxAt };

/**
 * The fitting-side data model (DESIGN.md): J models x C presentations ("columns") of I items with
 * ragged option counts. A column is one item shown in one display order (the same item under four
 * rotations is four columns); item parameters (a, c) follow the item, while positional parameters
 * (delta, rho) follow the displayed position `colPosition`. No padding to K_max.
 */
export interface ResponseBank {
  /** Model (LLM) ids, J. */
  models: string[];
  /** Items, I (id, key, option count, optional benchmark and option texts). */
  items: ItemSpec[];
  /** Per-item offsets into option-indexed item parameters (a, c): length I + 1. */
  itemOffsets: Int32Array;
  /** Keyed option per item (content order): length I. */
  key: Int32Array;
  /** Largest option count over the items. */
  kMax: number;
  /** Item of each column: length C. */
  colItem: Int32Array;
  /** Per-column offsets into a data row: length C + 1 (a column has K_item entries). */
  colOffsets: Int32Array;
  /** Displayed position of each option (content order) per column, length colOffsets[C]; null = identity. */
  colPosition: Uint8Array | null;
  /** Observed distributions, row-major: J rows of colOffsets[C] entries (content order). */
  q: Float32Array;
  /** 1 where cell (j, c) is observed: J x C. */
  observed: Uint8Array;
  /** 1 where the observed cell came from a hard answer (one-hot): J x C. */
  hard: Uint8Array;
  /** Per-cell letter-mass leakage (NaN where not reported): J x C. */
  leakage: Float32Array | null;
}

/**
 * A bank's shape with nothing observed: `items` shown as the columns `colItem` (item indices), each
 * in the display order `position(c)` (content index -> displayed position; null: identity), for
 * `models`; `leakage` allocates the per-cell leakage (NaN: not reported). The one place a
 * ResponseBank is assembled (records, simulation, a bundle's data-free bank).
 */
export function emptyBank(
  models: string[],
  items: ItemSpec[],
  colItem: ArrayLike<number>,
  position: ((c: number) => ArrayLike<number> | null) | null = null,
  leakage = false,
): ResponseBank {
  const nI = items.length;
  const itemOffsets = new Int32Array(nI + 1);
  const key = new Int32Array(nI);
  let kMax = 0;
  for (let i = 0; i < nI; i++) {
    const k = items[i]!.nOptions;
    itemOffsets[i + 1] = itemOffsets[i]! + k;
    key[i] = items[i]!.key;
    if (k > kMax) kMax = k;
  }
  const nC = colItem.length;
  const cols = Int32Array.from(colItem);
  const colOffsets = new Int32Array(nC + 1);
  for (let c = 0; c < nC; c++) colOffsets[c + 1] = colOffsets[c]! + items[cols[c]!]!.nOptions;
  const width = colOffsets[nC]!;
  const shown = position === null ? [] : Array.from({ length: nC }, (_, c) => position(c));
  let colPosition: Uint8Array | null = null;
  if (shown.some((p) => p !== null)) {
    colPosition = new Uint8Array(width);
    for (let c = 0; c < nC; c++) {
      const p = shown[c]!;
      const o = colOffsets[c]!;
      const k = colOffsets[c + 1]! - o;
      for (let t = 0; t < k; t++) colPosition[o + t] = p === null ? t : p[t]!;
    }
  }
  const J = models.length;
  return {
    models,
    items,
    itemOffsets,
    key,
    kMax,
    colItem: cols,
    colOffsets,
    colPosition,
    q: new Float32Array(J * width),
    observed: new Uint8Array(J * nC),
    hard: new Uint8Array(J * nC),
    leakage: leakage ? new Float32Array(J * nC).fill(NaN) : null,
  };
}

/** Counts of what `bankFromRecords` kept, skipped and why. */
export interface BankStats {
  records: number;
  cells: number;
  soft: number;
  hard: number;
  /** `choice: null` answers: unparsable, counted as missing. */
  missingAnswers: number;
  /** Records dropped under `skipInvalid`, with the reason of each (the first 100 kept verbatim). */
  skipped: number;
  skippedReasons: string[];
  /** Models and items dropped because no cell of theirs was observed (`dropEmpty`). */
  droppedModels: string[];
  droppedItems: string[];
}

export interface BankFromRecordsOptions {
  /**
   * Fix the item list and order (scoring against a calibrated bank). Records for other items are an
   * error (`UNKNOWN_ITEM`), or skipped and counted with `skipInvalid`. Default: items in order of appearance.
   */
  items?: ItemSpec[];
  /** Skip (and count) invalid records instead of throwing. Default false. */
  skipInvalid?: boolean;
  /** Drop models/items with no observed cell instead of throwing `EMPTY`. Default false. */
  dropEmpty?: boolean;
  /** Where each record came from (same index), for error messages. */
  sources?: RecordSource[];
  /** Source name used in messages when `sources` is not given. */
  file?: string;
  /** The records came out of `parseResponseRecord` unchanged: skip the record check (the bank's own checks still run). Default false. */
  checked?: boolean;
  /** Drop the records' keys: every item is `keyFree` (anchored by `consensusKeys`). Default false. */
  ignoreKey?: boolean;
}

/** Normalise one checked record's (parseResponseRecord's) response to a distribution over its K options; throws on a choice out of range. */
export function recordDistribution(r: ResponseRecord, k: number): { probs: Float64Array; hard: boolean } | null {
  const probs = new Float64Array(k);
  const d = distributionInto(r, k, probs, 0);
  return d === null ? null : { probs, hard: d.hard };
}

const HARD = { hard: true } as const;
const SOFT = { hard: false } as const;

const EXP_SCRATCH = new Float64Array(MAX_OPTIONS);

/**
 * The checked record's distribution into out[o .. o + k): each entry the double-precision p / sum,
 * stored as out's type. parseResponseRecord has checked the values and that their count is k; only
 * a choice can exceed an option count that came from elsewhere (the item's).
 */
function distributionInto(r: ResponseRecord, k: number, out: Float64Array | Float32Array, o: number): { hard: boolean } | null {
  if (r.choice !== undefined) {
    if (r.choice === null) return null;
    if (r.choice >= k) throw new LlmNrmError('INVALID_RECORD', `choice out of range: ${JSON.stringify(r.choice)} (options: ${k})`);
    for (let i = 0; i < k; i++) out[o + i] = 0;
    out[o + r.choice] = 1;
    return HARD;
  }
  if (r.probs !== undefined) {
    let sum = 0;
    for (let i = 0; i < k; i++) sum += r.probs[i]!;
    for (let i = 0; i < k; i++) out[o + i] = r.probs[i]! / sum;
    return SOFT;
  }
  const lp = r.logprobs!;
  let max = -Infinity;
  for (let i = 0; i < k; i++) if (lp[i]! > max) max = lp[i]!;
  let sum = 0;
  for (let i = 0; i < k; i++) {
    const e = Math.exp(lp[i]! - max);
    EXP_SCRATCH[i] = e;
    sum += e;
  }
  for (let i = 0; i < k; i++) out[o + i] = EXP_SCRATCH[i]! / sum;
  return SOFT;
}

/** A checked position's (a permutation, parseResponseRecord) display-order signature: '' for the identity. */
function positionSignature(pos: number[]): string {
  return pos.every((p, i) => p === i) ? '' : pos.join(',');
}

/** A bank built record by record (a stream): `add` each record as it is read, then `finish`. */
export interface BankBuilder {
  /** Check and place one record; `source` locates it in messages (else `options.sources` / its index). */
  add(record: ResponseRecord, source?: RecordSource): void;
  /** The bank of every record added (no record is kept: only the bank's own typed arrays). */
  finish(): { bank: ResponseBank; stats: BankStats };
}

/**
 * Build a ResponseBank from tidy response records. Each record is validated (distribution, key,
 * option count, position); a bad one throws an `LlmNrmError` naming its source line and value, or is
 * counted and skipped under `skipInvalid`. A repeated (model, item, display order) becomes a further
 * replicate column, so epochs and repeated trials are kept apart rather than averaged.
 */
export function bankFromRecords(records: Iterable<ResponseRecord>, options: BankFromRecordsOptions = {}): { bank: ResponseBank; stats: BankStats } {
  const builder = createBankBuilder(options);
  for (const r of records) builder.add(r);
  return builder.finish();
}

/** `bankFromRecords` one record at a time (records are not kept); the same bank, bit for bit, for the same records in order. */
export function createBankBuilder(options: BankFromRecordsOptions = {}): BankBuilder {
  const stats: BankStats = {
    records: 0,
    cells: 0,
    soft: 0,
    hard: 0,
    missingAnswers: 0,
    skipped: 0,
    skippedReasons: [],
    droppedModels: [],
    droppedItems: [],
  };
  const fixedItems = options.items !== undefined;
  const items: ItemSpec[] = fixedItems ? options.items!.map((it) => ({ ...it })) : [];
  const itemIndex = new Map<string, number>();
  items.forEach((it, i) => {
    if (itemIndex.has(it.id)) throw new LlmNrmError('DUPLICATE', `duplicate item id: ${JSON.stringify(it.id)}`);
    itemIndex.set(it.id, i);
  });
  const modelIndex = new Map<string, number>();
  const models: string[] = [];
  const columnIndex = new Map<string, number>();
  const colItemList: number[] = [];
  const colPosList: (number[] | null)[] = [];
  const colOrderKeys: { sig: string; rep: number }[] = [];
  const replicate = new Map<string, number>();
  // Every cell, and its distribution as float32 (the precision of q), in chunks (bankCells.ts).
  const cells = new BankCells();

  const checked = options.checked === true;
  // Replicate counts and first columns of content-order records by number (no key string per record).
  const replicateAt: Int32Array[] = [];
  const firstColumn: number[] = [];
  // Id lookups: records usually repeat one LLM's item sequence, so the item that followed the
  // previous record's item is tried before the map, and the previous record's model.
  const nextItem: number[] = [];
  let prevItem = -1;
  let prevModel: string | undefined;
  let prevModelIndex = -1;
  const lastContent = new Map<number, { r: ResponseRecord; sha: string | undefined }>();
  let idx = -1;
  const add = (raw: ResponseRecord, source?: RecordSource): void => {
    idx++;
    stats.records++;
    const src = source ?? options.sources?.[idx];
    const file = src?.file ?? options.file;
    const line = src?.line ?? (source !== undefined || options.sources ? undefined : idx + 1);
    try {
      // The one record check (shape, values, agreeing lengths), shared with the readers and convert.
      const r = checked ? raw : parseResponseRecord(raw);
      const guess = prevItem >= 0 ? nextItem[prevItem] : undefined;
      const known = guess !== undefined && items[guess]!.id === r.item ? guess : itemIndex.get(r.item);
      const k = statedOptions(r) ?? (known !== undefined ? items[known]!.nOptions : undefined);
      if (k === undefined)
        throw new LlmNrmError('INVALID_OPTIONS', `record for item ${JSON.stringify(r.item)} gives no option count (options, probs, logprobs or nOptions)`);
      if (!Number.isInteger(k) || k < 2 || k > MAX_OPTIONS)
        throw new LlmNrmError('INVALID_OPTIONS', `invalid option count: ${k} (item ${JSON.stringify(r.item)}; must be 2 to ${MAX_OPTIONS})`);
      // No key (or ignoreKey): a key-free item, unless another record of it gives one.
      const key = options.ignoreKey === true ? undefined : r.key;
      if (key !== undefined && (!Number.isInteger(key) || key < 0 || key >= k))
        throw new LlmNrmError('INVALID_KEY', `key out of range: ${JSON.stringify(key)} (item ${JSON.stringify(r.item)} has ${k} options)`);
      if (known === undefined && fixedItems) throw new LlmNrmError('UNKNOWN_ITEM', `item not in the calibrated bank: ${JSON.stringify(r.item)}`);
      if (known !== undefined) {
        const spec = items[known]!;
        if (spec.nOptions !== k)
          throw new LlmNrmError('INVALID_OPTIONS', `item ${JSON.stringify(r.item)} has ${k} options here but ${spec.nOptions} elsewhere`);
        if (key !== undefined && spec.keyFree !== true && spec.key !== key)
          throw new LlmNrmError('INVALID_KEY', `item ${JSON.stringify(r.item)} is keyed ${key} here but ${spec.key} elsewhere`);
        // Two items that share an id but not their option texts are different items: never merged.
        if (r.options !== undefined && spec.options !== undefined && !sameTexts(r.options, spec.options)) {
          throw new LlmNrmError(
            'INVALID_OPTIONS',
            `item ${JSON.stringify(r.item)} has other option texts here than elsewhere (${JSON.stringify(r.options[0]?.slice(0, 40))}... vs ${JSON.stringify(spec.options[0]?.slice(0, 40))}...): two items share this id; resolveItemVersions (--item-versions) tells them apart`,
          );
        }
      }
      // A calibrated item answered on another text is another item: never score it as this one.
      const content = contentOf(r, known, lastContent);
      const calibrated = known !== undefined ? items[known]!.contentSha256 : undefined;
      if (fixedItems && content !== undefined && calibrated !== undefined && content !== calibrated) {
        throw new LlmNrmError(
          'CONTENT_CHANGED',
          `item ${JSON.stringify(r.item)} was answered on another prompt, contexts or continuations than it was calibrated on (content sha256 ${content.slice(0, 12)}..., calibrated ${calibrated.slice(0, 12)}...)`,
        );
      }
      const sig = r.position !== undefined ? positionSignature(r.position) : '';
      const slot = cells.slot(k);
      const dist = distributionInto(r, k, slot.array, slot.at);
      // Valid: only now register the item, so a skipped record leaves no trace in the bank.
      let ii = known;
      if (ii === undefined) {
        ii = items.length;
        const spec: ItemSpec = { id: r.item, key: key ?? 0, nOptions: k };
        if (key === undefined) spec.keyFree = true;
        if (r.benchmark !== undefined) spec.benchmark = r.benchmark;
        if (r.options !== undefined) spec.options = r.options.slice();
        if (r.source !== undefined) spec.source = { ...r.source };
        if (content !== undefined) spec.contentSha256 = content;
        items.push(spec);
        itemIndex.set(r.item, ii);
      } else {
        const spec = items[ii]!;
        // A key given by any record of an item fitted from records keys it (in any row order).
        if (key !== undefined && spec.keyFree === true && !fixedItems) {
          spec.key = key;
          delete spec.keyFree;
        }
        if (r.options !== undefined && spec.options === undefined) spec.options = r.options.slice();
        // Records may give these differently: keep the least by JSON text (independent of row order).
        if (r.source !== undefined && !fixedItems && (spec.source === undefined || JSON.stringify(r.source) < JSON.stringify(spec.source)))
          spec.source = { ...r.source };
        if (content !== undefined && !fixedItems && (spec.contentSha256 === undefined || content < spec.contentSha256)) spec.contentSha256 = content;
      }
      let mi = r.model === prevModel ? prevModelIndex : modelIndex.get(r.model);
      if (mi === undefined) {
        mi = models.length;
        models.push(r.model);
        modelIndex.set(r.model, mi);
      }
      prevModel = r.model;
      prevModelIndex = mi;
      if (prevItem >= 0) nextItem[prevItem] = ii;
      prevItem = ii;
      if (dist === null) {
        stats.missingAnswers++;
        return;
      }
      // Replicates of one (model, item, order) go to successive columns (epochs kept apart).
      let rep: number;
      if (sig === '') {
        let byItem = replicateAt[mi];
        if (byItem === undefined || ii >= byItem.length) {
          const grown = new Int32Array(Math.max(64, 2 * (ii + 1), items.length));
          if (byItem !== undefined) grown.set(byItem);
          replicateAt[mi] = byItem = grown;
        }
        rep = byItem[ii]!;
        byItem[ii] = rep + 1;
      } else {
        const repKey = `${mi}\u0000${ii}\u0000${sig}`;
        rep = replicate.get(repKey) ?? 0;
        replicate.set(repKey, rep + 1);
      }
      const colKey = sig === '' && rep === 0 ? '' : `${ii}\u0000${sig}\u0000${rep}`;
      let col = colKey === '' ? firstColumn[ii] : columnIndex.get(colKey);
      if (col === undefined) {
        col = colItemList.length;
        if (colKey === '') firstColumn[ii] = col;
        else columnIndex.set(colKey, col);
        colItemList.push(ii);
        colPosList.push(sig === '' ? null : r.position!.slice());
        colOrderKeys.push({ sig, rep });
      }
      cells.push(mi, col, k, dist.hard, r.leakage ?? NaN);
      if (dist.hard) stats.hard++;
      else stats.soft++;
    } catch (e) {
      if (!(e instanceof LlmNrmError)) throw e;
      const located = new LlmNrmError(e.code, e.message, { cause: e, ...(file !== undefined ? { file } : {}), ...(line !== undefined ? { line } : {}) });
      if (!options.skipInvalid) throw located;
      stats.skipped++;
      if (stats.skippedReasons.length < 100) stats.skippedReasons.push(located.message);
    }
  };
  let finished = false;
  const finish = (): { bank: ResponseBank; stats: BankStats } => {
    if (finished) throw new LlmNrmError('INVALID_OPTION', 'this bank builder has already finished');
    finished = true;
    return assembleBank(models, items, colItemList, colPosList, colOrderKeys, cells, stats, options.dropEmpty ?? false, fixedItems);
  };
  return { add, finish };
}

/** recordContentSha256 of a record, reusing its item's last hash when the texts repeat (one SHA-256 per item). */
function contentOf(r: ResponseRecord, item: number | undefined, last: Map<number, { r: ResponseRecord; sha: string | undefined }>): string | undefined {
  if (r.continuations === undefined) return undefined;
  const prev = item === undefined ? undefined : last.get(item);
  if (prev !== undefined && sameContent(prev.r, r)) return prev.sha;
  const sha = recordContentSha256(r);
  if (item !== undefined) last.set(item, { r, sha });
  return sha;
}

function sameContent(a: ResponseRecord, b: ResponseRecord): boolean {
  return a.prompt === b.prompt && sameTexts(a.contexts, b.contexts) && sameTexts(a.continuations, b.continuations);
}

function assembleBank(
  modelsIn: string[],
  itemsIn: ItemSpec[],
  colItemIn: number[],
  colPosIn: (number[] | null)[],
  colOrderKeys: { sig: string; rep: number }[],
  cells: BankCells,
  stats: BankStats,
  dropEmpty: boolean,
  fixedItems: boolean,
): { bank: ResponseBank; stats: BankStats } {
  const nCells = cells.n;
  if (nCells === 0) throw new LlmNrmError('EMPTY', 'no observed response: nothing to fit');
  const modelSeen = new Uint8Array(modelsIn.length);
  const itemSeen = new Uint8Array(itemsIn.length);
  let anyLeak = false;
  for (const ch of cells.chunks) {
    for (let i = 0; i < ch!.n; i++) {
      modelSeen[ch!.model[i]!] = 1;
      itemSeen[colItemIn[ch!.column[i]!]!] = 1;
      if (!anyLeak && !Number.isNaN(ch!.leakage[i]!)) anyLeak = true;
    }
  }
  const emptyModels = modelsIn.filter((_, i) => !modelSeen[i]);
  // With a fixed item list (scoring), unobserved items are expected and kept.
  const emptyItems = fixedItems ? [] : itemsIn.filter((_, i) => !itemSeen[i]).map((it) => it.id);
  if (!dropEmpty && (emptyModels.length > 0 || emptyItems.length > 0)) {
    const what = emptyModels.length > 0 ? `model ${JSON.stringify(emptyModels[0])}` : `item ${JSON.stringify(emptyItems[0])}`;
    throw new LlmNrmError('EMPTY', `${what} has no observed cell (every answer missing); --drop-empty (option dropEmpty) leaves such models and items out`);
  }
  stats.droppedModels = emptyModels;
  stats.droppedItems = emptyItems;
  // Sorted by id (digit runs by value), so the bank never depends on the order of the input rows.
  const modelMap = new Int32Array(modelsIn.length).fill(-1);
  const models: string[] = [];
  for (const i of naturalOrder(modelsIn)) {
    if (modelSeen[i]) {
      modelMap[i] = models.length;
      models.push(modelsIn[i]!);
    }
  }
  const itemMap = new Int32Array(itemsIn.length).fill(-1);
  const items: ItemSpec[] = [];
  const itemOrder = fixedItems ? itemsIn.map((_, i) => i) : naturalOrder(itemsIn.map((it) => it.id));
  for (const i of itemOrder) {
    if (fixedItems || itemSeen[i]) {
      itemMap[i] = items.length;
      items.push(itemsIn[i]!);
    }
  }
  // Columns by item, then display order, then replicate number.
  const colOrder = sortedIndices(
    colItemIn.length,
    (a, b) =>
      itemMap[colItemIn[a]!]! - itemMap[colItemIn[b]!]! ||
      (colOrderKeys[a]!.sig < colOrderKeys[b]!.sig ? -1 : colOrderKeys[a]!.sig > colOrderKeys[b]!.sig ? 1 : 0) ||
      colOrderKeys[a]!.rep - colOrderKeys[b]!.rep,
  );
  const colMap = new Int32Array(colItemIn.length);
  colOrder.forEach((c, k) => (colMap[c] = k));
  colItemIn = colOrder.map((c) => colItemIn[c]!);
  colPosIn = colOrder.map((c) => colPosIn[c]!);
  const bank = emptyBank(
    models,
    items,
    colItemIn.map((c) => itemMap[c]!),
    (c) => colPosIn[c] ?? null,
    anyLeak,
  );
  const { colOffsets, q, observed, hard, leakage } = bank;
  const nC = colOffsets.length - 1;
  const width = colOffsets[nC]!;
  // The cells' last use: each chunk is released once the bank has taken it (BankCells.drain).
  cells.drain((ch, n, pool, off) => {
    const j = modelMap[ch.model[n]!]!;
    const column = colMap[ch.column[n]!]!;
    const cc = j * nC + column;
    if (observed[cc]) throw new LlmNrmError('DUPLICATE', `duplicate cell for model ${JSON.stringify(models[j])}`);
    observed[cc] = 1;
    hard[cc] = ch.hard[n]!;
    if (leakage) leakage[cc] = ch.leakage[n]!;
    const base = j * width + colOffsets[column]!;
    const k = ch.k[n]!;
    for (let t = 0; t < k; t++) q[base + t] = pool[off + t]!;
  });
  // Key-free items (fitted from records, not scored against a bundle) take the fleet's anchor.
  if (!fixedItems && items.some((it) => it.keyFree === true)) {
    const anchor = consensusKeys(bank);
    items.forEach((it, i) => {
      if (it.keyFree === true) bank.key[i] = it.key = anchor[i]!;
    });
  }
  stats.cells = nCells;
  return { bank, stats };
}

function sortedIndices(n: number, compare: (a: number, b: number) => number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort(compare);
}

/**
 * Indices of `ids` in natural order (a stable sort): digit runs compared by value (`mmlu/2` before
 * `mmlu/10`), else by UTF-16 code units (locale-free); each id split into its runs once.
 */
export function naturalOrder(ids: readonly string[]): number[] {
  const keys = ids.map(naturalKey);
  return sortedIndices(ids.length, (a, b) => compareNaturalKeys(keys[a]!, keys[b]!, ids[a]!, ids[b]!));
}

/** An id's runs of digits and of non-digits; for a digit run, its value's digits without leading zeros. */
interface NaturalKey {
  parts: string[];
  digits: boolean[];
  stripped: string[];
}

function naturalKey(s: string): NaturalKey {
  const parts = s.match(/(\d+)|(\D+)/g) ?? [];
  const digits = parts.map((x) => /^\d/.test(x));
  const stripped = parts.map((x, i) => (digits[i] ? x.replace(/^0+(?=\d)/, '') : x));
  return { parts, digits, stripped };
}

function compareNaturalKeys(ka: NaturalKey, kb: NaturalKey, a: string, b: string): number {
  const pa = ka.parts;
  const pb = kb.parts;
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    if (ka.digits[i] && kb.digits[i]) {
      const nx = ka.stripped[i]!;
      const ny = kb.stripped[i]!;
      if (nx.length !== ny.length) return nx.length - ny.length;
      if (nx !== ny) return nx < ny ? -1 : 1;
      if (x.length !== y.length) return x.length - y.length;
      continue;
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * A bank whose observed mask is replaced (cross-validation folds, calibration subsets): shares the
 * data arrays, so it costs J x C bytes.
 */
export function withObserved(bank: ResponseBank, observed: Uint8Array): ResponseBank {
  if (observed.length !== bank.observed.length) {
    throw new LlmNrmError('INVALID_OPTION', `observed mask has ${observed.length} cells, bank has ${bank.observed.length}`);
  }
  return { ...bank, observed };
}

/** Hard (one-hot of the argmax) copy of a bank's responses, for NRM on hard responses. */
export function hardenBank(bank: ResponseBank): ResponseBank {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const q = new Float32Array(bank.q.length);
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const o = j * width + bank.colOffsets[c]!;
      const k = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      q[o + argmaxAt(bank.q, o, k)] = 1;
    }
  }
  return { ...bank, q, hard: bank.observed.slice() };
}

/** Correctness y_ji = [argmax q_ji = g_i] per cell (J x C), 255 where unobserved. */
export function correctness(bank: ResponseBank): Uint8Array {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const y = new Uint8Array(bank.models.length * nC).fill(255);
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const o = j * width + bank.colOffsets[c]!;
      const k = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      y[j * nC + c] = argmaxAt(bank.q, o, k) === bank.key[bank.colItem[c]!] ? 1 : 0;
    }
  }
  return y;
}
