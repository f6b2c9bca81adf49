// One input contract (issue 31): every command that reads responses takes what `fit` takes (tidy
// files or folders, harness output, `-`; --skip-invalid, --item-versions, --replicates) and reads
// them one way. Responses read against a bundle get the bundle's item-version ids.
import type { Argv } from 'yargs';
import { type BundleItem, type ItemVersionPolicy, type ResponseRecord } from '@llm-nrm/core';
import { contentHash } from '@llm-nrm/core/record';
import {
  readAnyBank,
  readAnyInto,
  readAnyResponses,
  type AnyBank,
  type AnyRead,
  type AnyResponses,
  type ExpectedRecords,
  type RecordSink,
  type ReplicatePolicy,
} from '@llm-nrm/adapters';
import { identityOptions } from './identityOptions.js';
import { formatSkipped, infoLines, progress } from './output.js';
import { readProgressLine } from './progressLines.js';

export { applyBundleVersions, readBankInput, readResponsesInput, readResponsesInto, reportReadInput, responsesInputOptions, type ResponsesInputArgs };

/** The options `responsesInputOptions` adds. */
interface ResponsesInputArgs {
  'skip-invalid': boolean;
  'item-versions': ItemVersionPolicy;
  replicates: ReplicatePolicy;
}

/** `--skip-invalid`, `--item-versions` and `--replicates`, as `fit` has them (skipInvalid: its description, where a command skips more). */
function responsesInputOptions<T>(y: Argv<T>, skipInvalid = 'Skip (and count) invalid records instead of stopping at the first'): Argv<T & ResponsesInputArgs> {
  return identityOptions(y).option('skip-invalid', { describe: skipInvalid, type: 'boolean', default: false }) as Argv<T & ResponsesInputArgs>;
}

/**
 * Read responses as `fit` does (readAnyResponses with the command's --skip-invalid,
 * --item-versions and --replicates), saying on stderr what was skipped; against a bundle, records
 * take the bundle's item-version ids (applyBundleVersions).
 */
async function readResponsesInput(
  path: string,
  argv: ResponsesInputArgs & { quiet?: boolean },
  bundleItems?: readonly Pick<BundleItem, 'id' | 'key' | 'nOptions'>[],
): Promise<AnyResponses & { renamed: number }> {
  const input = await readAnyResponses(path, { skipInvalid: argv['skip-invalid'], itemVersions: argv['item-versions'], replicates: argv.replicates });
  reportReadInput(argv.quiet ?? false, input.summary);
  if (bundleItems === undefined) return { ...input, renamed: 0 };
  const { records, renamed } = applyBundleVersions(input.records, bundleItems);
  return { ...input, records, renamed };
}

/**
 * `readResponsesInput` into a sink (adapters' readAnyInto): records flow to it as they are read and
 * are not kept; against a bundle, each takes the bundle's item-version id first (as
 * applyBundleVersions). A long read says how far it is on stderr, as `label` ("read: 2,000,000 of
 * 5,963,706 records..."). `again`: a second read of the same input, whose notes and skips the first
 * already said.
 */
async function readResponsesInto<T>(
  path: string,
  argv: ResponsesInputArgs & { quiet?: boolean },
  bundleItems: readonly Pick<BundleItem, 'id' | 'key' | 'nOptions'>[] | undefined,
  start: () => RecordSink<T>,
  { label = 'read', again = false }: { label?: string; again?: boolean } = {},
): Promise<AnyRead<T> & { renamed: number }> {
  // The count of the sink that finished (a restarted read starts a fresh one).
  let renamed = (): number => 0;
  const options = {
    skipInvalid: argv['skip-invalid'],
    itemVersions: argv['item-versions'],
    replicates: argv.replicates,
    onProgress: readProgress(argv, label),
  };
  const read = await readAnyInto(path, options, () => {
    const sink = start();
    const renamer = bundleItems === undefined ? null : bundleVersionRenamer(bundleItems);
    renamed = renamer?.renamed ?? (() => 0);
    if (renamer === null) return sink;
    const rename = renamer.rename;
    return { add: (r, source) => sink.add(rename(r), source), finish: () => sink.finish() };
  });
  if (!again) reportReadInput(argv.quiet ?? false, read.summary);
  return { ...read, renamed: renamed() };
}

/**
 * `readResponsesInput` straight into a bank (`fit`): records flow into the bank's typed arrays as
 * they are read and are not kept (adapters' readAnyBank), saying on stderr what was skipped.
 */
async function readBankInput(path: string, argv: ResponsesInputArgs & { quiet?: boolean; 'drop-empty'?: boolean; 'ignore-key'?: boolean }): Promise<AnyBank> {
  const input = await readAnyBank(path, {
    skipInvalid: argv['skip-invalid'],
    itemVersions: argv['item-versions'],
    replicates: argv.replicates,
    dropEmpty: argv['drop-empty'] ?? false,
    ignoreKey: argv['ignore-key'] ?? false,
    onProgress: readProgress(argv, 'read'),
  });
  reportReadInput(argv.quiet ?? false, input.summary);
  return input;
}

/** A long read's progress on stderr (`readProgressLine` as `label`): a line about once a second after the first two. */
function readProgress(argv: { quiet?: boolean }, label: string): (p: { records: number; expected: ExpectedRecords | undefined }) => void {
  const tick = progress(argv.quiet ?? false);
  const started = Date.now();
  return ({ records, expected }) => {
    const seconds = (Date.now() - started) / 1000;
    if (seconds >= 2) tick(readProgressLine(records, expected, seconds, label));
  };
}

/**
 * What the readers said on the way, on stderr: their notes (per file: records, NaN option scores,
 * undecodable bytes...) and the skipped units with file, line and reason. The one report of
 * `convert`'s readers that every command reading responses gives.
 */
function reportReadInput(quiet: boolean, summary: Pick<AnyResponses['summary'], 'notes' | 'skipped'>): void {
  infoLines(
    quiet,
    summary.notes.map((n) => `note: ${n}`),
  );
  infoLines(quiet, formatSkipped(summary.skipped));
}

/** The signature resolveItemVersions hashes for a record's version (core's record/resolveItemVersions.ts). */
function versionSignature(r: ResponseRecord): string | null {
  if (r.options === undefined && r.source?.docHash === undefined) return null;
  const k = r.options?.length ?? r.probs?.length ?? r.logprobs?.length ?? r.nOptions ?? r.position?.length;
  return JSON.stringify(r.source?.docHash !== undefined ? [k, r.key, r.options, r.source.docHash] : [k, r.key, r.options]);
}

/**
 * Records renamed to the bundle's item-version ids. A bundle fitted under `--item-versions split`
 * holds `<id>#<hash>` for an id that named several contents; responses read on their own keep
 * `<id>` wherever they hold one version (a new LLM's file), and were refused as unknown items. A
 * record whose id the bundle lacks takes the version whose content hash its own content gives,
 * else the one version with its key and option count (records without option texts); ids the
 * bundle holds are left alone.
 */
function applyBundleVersions(
  records: readonly ResponseRecord[],
  items: readonly Pick<BundleItem, 'id' | 'key' | 'nOptions'>[],
): { records: ResponseRecord[]; renamed: number } {
  const renamer = bundleVersionRenamer(items);
  if (renamer === null) return { records: records.slice(), renamed: 0 };
  return { records: records.map(renamer.rename), renamed: renamer.renamed() };
}

/** `applyBundleVersions` one record at a time (a stream); null when the bundle holds no split ids. */
function bundleVersionRenamer(
  items: readonly Pick<BundleItem, 'id' | 'key' | 'nOptions'>[],
): { rename: (r: ResponseRecord) => ResponseRecord; renamed: () => number } | null {
  const ids = new Set(items.map((it) => it.id));
  const versions = new Map<string, Pick<BundleItem, 'id' | 'key' | 'nOptions'>[]>();
  for (const it of items) {
    const hash = it.id.lastIndexOf('#');
    if (hash <= 0) continue;
    const base = it.id.slice(0, hash);
    const list = versions.get(base) ?? [];
    list.push(it);
    versions.set(base, list);
  }
  if (versions.size === 0) return null;
  let renamed = 0;
  const rename = (r: ResponseRecord): ResponseRecord => {
    if (ids.has(r.item)) return r;
    const list = versions.get(r.item);
    if (list === undefined) return r;
    const sig = versionSignature(r);
    let id: string | undefined = sig !== null && ids.has(`${r.item}#${contentHash(sig)}`) ? `${r.item}#${contentHash(sig)}` : undefined;
    if (id === undefined) {
      const k = r.options?.length ?? r.probs?.length ?? r.logprobs?.length ?? r.nOptions ?? r.position?.length;
      const fits = list.filter((v) => v.key === r.key && (k === undefined || v.nOptions === k));
      if (fits.length === 1) id = fits[0]!.id;
    }
    if (id === undefined) return r;
    renamed++;
    return { ...r, item: id };
  };
  return { rename, renamed: () => renamed };
}
