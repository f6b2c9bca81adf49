import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { describeValue, LlmNrmError } from '@llm-nrm/core';
import type { FormatName } from './reader.js';
import { folderEntries, isToolOutput } from './walk.js';

/** Every input format `--from` accepts, in the order detection tries them. */
export const FORMAT_NAMES: readonly FormatName[] = ['tidy', 'lm-eval-harness', 'helm', 'inspect', 'openai-evals', 'naep-rotations'];

export interface DetectOptions {
  /** Most files whose first bytes a folder scan reads (files recognised by name are free). Default 1000. */
  maxSniffed?: number;
}

/** One input of a conversion: a file or folder and the format its reader takes. */
export interface DetectedInput {
  path: string;
  format: FormatName;
}

/** What detection looks for, for the error when nothing matches. */
const LOOKED_FOR =
  'tidy records (model, item, key?, probs/logprobs/choice; .jsonl/.arrow/.parquet), lm-eval-harness samples (samples_*.jsonl, *_write_out_info.json, ' +
  'records with doc_id) or results_*.json, a HELM run folder (scenario_state.json, run_spec.json), an Inspect log ' +
  '(.eval zip, or JSON with eval and samples), an OpenAI-evals log (JSONL with spec, final_report or run_id events), ' +
  'NAEP rotation data (naep-*-items.jsonl, naep-*-responses-*.jsonl)';

/** Files named like this are HELM run files: their folder is a run. */
const HELM_RUN_FILE = /^(scenario_state|run_spec|display_predictions)\.json(\.gz)?$/;

/** Names that settle the format without reading the file. */
const NAME_RULES: readonly [RegExp, FormatName][] = [
  [/^samples_.+\.jsonl?(\.gz)?$/i, 'lm-eval-harness'],
  [/^results_.+\.json(\.gz)?$/i, 'lm-eval-harness'],
  [/_write_out_info\.json(\.gz)?$/i, 'lm-eval-harness'],
  [/\.eval$/i, 'inspect'],
  [/^naep-.+-(items|responses-.+)\.jsonl$/i, 'naep-rotations'],
  [/\.(arrow|feather|parquet)$/i, 'tidy'],
];

/** Extensions worth sniffing in a folder scan; others (README.md, .py, .csv...) are passed over. */
const SNIFF_EXTENSIONS = /\.(json|jsonl|ndjson|log|gz|eval|arrow|feather|ipc|parquet)$/i;

/** Bytes of a file's (decompressed) start read for sniffing. */
const HEAD_BYTES = 65536;

/**
 * The format of a harness output file or folder, for `convert` and `--from` defaults. A file is
 * recognised by its name where that is decisive (`samples_*.jsonl`, `*.eval`...), else by its first
 * bytes (zip, Parquet, Arrow magic; the keys of the first JSON object, also in gzip and in
 * pretty-printed or broken JSON). A folder is a HELM run when it holds `scenario_state.json` or
 * `run_spec.json`; otherwise its files are recognised one by one and must agree. Throws `FORMAT`
 * naming the path and what was looked for when nothing matches, or listing the formats found when
 * a folder mixes several (convert then reads each subfolder on its own: see `detectInputs`).
 */
export async function detectFormat(path: string, options: DetectOptions = {}): Promise<FormatName> {
  const node = await scan(path, { left: options.maxSniffed ?? 1000 });
  const formats = [...node.counts.keys()];
  if (formats.length === 1) return formats[0]!;
  if (formats.length === 0) throw nothingFound(path, node);
  const found = [...node.counts].map(([f, n]) => `${f} (${n})`).join(', ');
  throw new LlmNrmError('FORMAT', `mixed formats in one folder: ${found}; give the subfolders separately or pass --from`, { file: path });
}

/**
 * Split a path into inputs of one format each: the path itself when everything under it has one
 * format (or `from` is given), else its children, recursively, so a folder holding HELM runs, lm-eval
 * samples and Inspect logs converts in one go. Unrecognised files are left out (a folder holding
 * nothing recognisable throws `FORMAT`).
 */
export async function detectInputs(path: string, from?: FormatName, options: DetectOptions = {}): Promise<DetectedInput[]> {
  if (from !== undefined) {
    if (!FORMAT_NAMES.includes(from)) {
      throw new LlmNrmError('INVALID_OPTION', `unknown format: ${describeValue(from)} (one of ${FORMAT_NAMES.join(', ')})`);
    }
    return [{ path, format: from }];
  }
  const node = await scan(path, { left: options.maxSniffed ?? 1000 });
  if (node.counts.size === 0) throw nothingFound(path, node);
  const out: DetectedInput[] = [];
  const visit = (n: ScanNode) => {
    if (n.counts.size === 1) out.push({ path: n.path, format: [...n.counts.keys()][0]! });
    else if (n.counts.size > 1) n.children.forEach(visit);
  };
  visit(node);
  return out;
}

interface ScanNode {
  path: string;
  /** How many files (or HELM run folders) of each format lie under this node. */
  counts: Map<FormatName, number>;
  children: ScanNode[];
  /** Files looked at and not recognised, for the error message. */
  unknown: number;
}

async function scan(path: string, budget: { left: number }): Promise<ScanNode> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  const node: ScanNode = { path, counts: new Map(), children: [], unknown: 0 };
  await assertNotEmptyFile(path);
  if (!st.isDirectory()) {
    const f = await detectFile(path);
    if (f === undefined) node.unknown = 1;
    else node.counts.set(f, 1);
    return node;
  }
  const entries = await folderEntries(path);
  // A HELM run folder is one unit: its stats.json, scenario.json... are not inputs of their own.
  if (entries.some((d) => d.kind === 'file' && HELM_RUN_FILE.test(d.name))) {
    node.counts.set('helm', 1);
    return node;
  }
  for (const d of entries) {
    const child = d.path;
    let sub: ScanNode;
    if (d.kind === 'dir') sub = await scan(child, budget);
    else if (await isToolOutput(child)) continue;
    else {
      const byName = formatFromName(d.name);
      if (byName === undefined && (!SNIFF_EXTENSIONS.test(d.name) || budget.left <= 0)) continue;
      if (byName === undefined) budget.left--;
      const f = byName ?? (await detectFile(child));
      sub = { path: child, counts: new Map(f === undefined ? [] : [[f, 1]]), children: [], unknown: f === undefined ? 1 : 0 };
    }
    node.children.push(sub);
    node.unknown += sub.unknown;
    for (const [f, n] of sub.counts) node.counts.set(f, (node.counts.get(f) ?? 0) + n);
  }
  return node;
}

/**
 * Throw `EMPTY` ("the file is empty") for an empty or blank regular file: said as such, not as an
 * unrecognised format (whose list of every format looked for hides the one fact that matters) nor
 * as "nothing to fit". Pipes (`-`, /dev/stdin) have no size until read and are left alone.
 */
export async function assertNotEmptyFile(path: string): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  if (st === undefined || !st.isFile() || st.size > 4096) return;
  if (st.size === 0 || (await readFile(path, 'utf8')).trim() === '') {
    throw new LlmNrmError('EMPTY', `the file is empty${st.size > 0 ? ' (only blank lines)' : ''}: nothing to read`, { file: path });
  }
}

function nothingFound(path: string, node: ScanNode): LlmNrmError {
  const seen = node.unknown > 0 ? ` (${node.unknown} file${node.unknown === 1 ? '' : 's'} looked at)` : '';
  return new LlmNrmError('FORMAT', `unrecognised input${seen}: looked for ${LOOKED_FOR}; pass --from to choose a reader`, { file: path });
}

function formatFromName(name: string): FormatName | undefined {
  for (const [re, f] of NAME_RULES) if (re.test(name)) return f;
  if (HELM_RUN_FILE.test(name)) return 'helm';
  return undefined;
}

/** The format of one file: decisive names first, then content; undefined when neither says. */
async function detectFile(path: string): Promise<FormatName | undefined> {
  const name = basename(path);
  const byName = formatFromName(name);
  if (byName !== undefined) return byName;
  const head = await readHead(path);
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'inspect';
  const magic = String.fromCharCode(...head.subarray(0, 6));
  if (magic.startsWith('PAR1') || magic === 'ARROW1') return 'tidy';
  if (head.length >= 4 && head.subarray(0, 4).every((b) => b === 0xff)) return 'tidy';
  return formatFromKeys(firstObjectKeys(new TextDecoder().decode(head)));
}

/** Format from the keys of the first JSON object of a file (a JSONL line, a document, an array element). */
export function formatFromKeys(keys: ReadonlySet<string>): FormatName | undefined {
  const has = (k: string) => keys.has(k);
  // A key-free tidy record (no `key`) still has its response: probs, logprobs or choice.
  if (has('model') && has('item') && (has('key') || has('probs') || has('logprobs') || has('choice'))) return 'tidy';
  if (has('doc_id')) return 'lm-eval-harness';
  if (has('results') && (has('configs') || has('versions') || has('config') || has('n-shot'))) return 'lm-eval-harness';
  if (has('eval') && (has('samples') || has('plan') || has('status') || has('version'))) return 'inspect';
  if (has('spec') || has('final_report') || (has('run_id') && has('event_id'))) return 'openai-evals';
  if (has('item_id') && (has('logits') || (has('stem') && has('options')))) return 'naep-rotations';
  if ((has('adapter_spec') && (has('request_states') || has('scenario_spec'))) || (has('instance_id') && has('predicted_text'))) return 'helm';
  return undefined;
}

/** The first HEAD_BYTES bytes of a file, gunzipped when it is gzip. */
async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  let raw: Uint8Array;
  try {
    const buf = new Uint8Array(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    raw = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (!(raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b)) return raw;
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = createReadStream(path).pipe(createGunzip());
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= HEAD_BYTES) break;
    }
  } catch {
    // A truncated or corrupt gzip: sniff what was decompressed.
  } finally {
    stream.destroy();
  }
  return new Uint8Array(Buffer.concat(chunks)).subarray(0, HEAD_BYTES);
}

/**
 * Keys of the first JSON object in `text` (the document itself, or the first element of a top-level
 * array), found by a scan that needs no complete or valid JSON: the head of a large file, a
 * pretty-printed log, a record broken across lines all work. Empty when the text is not JSON-like.
 */
export function firstObjectKeys(text: string): Set<string> {
  const keys = new Set<string>();
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  skipSpace();
  if (text.charCodeAt(i) === 0xfeff) i++;
  if (text[i] === '[') {
    i++;
    skipSpace();
  }
  if (text[i] !== '{') return keys;
  let depth = 0;
  let expectKey = false;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      let s = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\') j++;
        else s += text[j];
      }
      if (depth === 1 && expectKey) {
        let k = j + 1;
        while (k < text.length && /\s/.test(text[k]!)) k++;
        if (text[k] === ':') keys.add(s);
      }
      i = j;
      expectKey = false;
    } else if (ch === '{' || ch === '[') {
      depth++;
      expectKey = ch === '{' && depth === 1;
    } else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) break;
    } else if (ch === ',') {
      expectKey = depth === 1;
    }
  }
  return keys;
}
