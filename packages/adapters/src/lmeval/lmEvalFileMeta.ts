import { readFile, readdir } from 'node:fs/promises';
import { checkJsonDepth } from '../internal/jsonDepth.js';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { LmEvalTaskConfig } from './sampleRecord.js';
import { parseSamplesName } from './samplesName.js';

export { parseSamplesName };

/** What the reader knows about one samples file before reading it. */
export interface LmEvalFileMeta {
  file: string;
  /** Task (benchmark) name; item ids are `<task>/<doc_id>`. */
  task: string;
  /** Where the task name came from (`file name`, `results.json tasks`, `guessed from file name`, `option`). */
  taskSource: string;
  model: string;
  /** Where the model name came from (`results_<date>.json model_name`, `folder name`...). */
  modelSource: string;
  /** Run stamp from `samples_<task>_<date>`, when the name has one. */
  date?: string;
  /** The task's config from the paired results file, when there is one. */
  config?: LmEvalTaskConfig;
}

/** A parsed results file (`results_<date>.json`, v0.4.0-0.4.2 `results.json`, v0.3 `results.json`). */
export interface LmEvalResultsInfo {
  file: string;
  date?: string;
  model?: string;
  modelSource?: string;
  tasks: string[];
  configs: Record<string, LmEvalTaskConfig>;
}

const RESULTS_NAME = /^results(?:_(.+?))?\.json(?:\.gz)?$/;
const WRITE_OUT_NAME = /^(.+)_write_out_info\.json(?:\.gz)?$/;

/** True for a results file name (`results.json`, `results_<date>.json`, gzipped or not). */
export function isResultsFileName(name: string): boolean {
  return RESULTS_NAME.test(name);
}

/** Stamp of a `results_<date>.json` name. */
export function resultsDate(name: string): string | undefined {
  return RESULTS_NAME.exec(name)?.[1];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `pretrained=X,dtype=...` (string or dict): the model path or id. */
function modelFromArgs(args: unknown): string | undefined {
  const keys = ['pretrained', 'model', 'path', 'engine'];
  if (typeof args === 'string') {
    for (const part of args.split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0 && keys.includes(part.slice(0, eq).trim())) return part.slice(eq + 1).trim();
    }
  } else if (isObj(args)) {
    for (const k of keys) if (typeof args[k] === 'string' && args[k] !== '') return args[k] as string;
  }
  return undefined;
}

/** Read one results file; null when it is not one (or unreadable: the caller notes it). */
export async function readResultsInfo(file: string): Promise<LmEvalResultsInfo | null> {
  let buf = await readFile(file);
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) buf = gunzipSync(buf);
  const doc: unknown = checkJsonDepth(JSON.parse(buf.toString('utf8')) as unknown);
  if (!isObj(doc) || !isObj(doc.results)) return null;
  const info: LmEvalResultsInfo = { file, tasks: Object.keys(doc.results), configs: {} };
  const date = resultsDate(basename(file));
  if (date !== undefined) info.date = date;
  if (typeof doc.model_name === 'string' && doc.model_name !== '') {
    info.model = doc.model_name;
    info.modelSource = `${basename(file)} model_name`;
  } else {
    const m = isObj(doc.config) ? modelFromArgs(doc.config.model_args) : undefined;
    if (m !== undefined) {
      info.model = m;
      info.modelSource = `${basename(file)} config.model_args`;
    }
  }
  if (isObj(doc.configs)) {
    for (const [t, c] of Object.entries(doc.configs)) if (isObj(c)) info.configs[t] = c as LmEvalTaskConfig;
  }
  return info;
}

/** `org__name` folder (sanitized HF id) back to `org/name`; other names as they are (sanitizing is lossy). */
export function modelFromFolder(folder: string): string {
  const parts = folder.split('__');
  if (parts.length === 2 && /^[^_]/.test(parts[0]!) && /[^_]$/.test(parts[0]!) && /^[^_]/.test(parts[1]!) && parts[1] !== '') return `${parts[0]}/${parts[1]}`;
  return folder;
}

/** Results files of each folder, read once per folder. */
export class ResultsCache {
  private readonly byDir = new Map<string, Promise<LmEvalResultsInfo[]>>();
  /** Problems met reading results files (reported as notes). */
  readonly problems: string[] = [];

  get(dir: string): Promise<LmEvalResultsInfo[]> {
    let p = this.byDir.get(dir);
    if (p === undefined) {
      p = this.load(dir);
      this.byDir.set(dir, p);
    }
    return p;
  }

  private async load(dir: string): Promise<LmEvalResultsInfo[]> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return [];
    }
    const out: LmEvalResultsInfo[] = [];
    for (const name of names.filter(isResultsFileName).sort()) {
      try {
        const info = await readResultsInfo(join(dir, name));
        if (info) out.push(info);
      } catch (e) {
        this.problems.push(`${join(dir, name)}: results file unreadable (${(e as Error).message.slice(0, 100)}); model name taken elsewhere`);
      }
    }
    return out;
  }
}

function stem(name: string): string {
  return name.replace(/\.gz$/i, '').replace(/\.jsonl?$/i, '');
}

/**
 * Task, model and task config of one samples file, from its name, the results file beside it
 * (same `<date>` stamp first, then any results file of the folder, which lm-eval names after the
 * model) and the folder name, in that order (formats doc §6).
 */
export async function lmEvalFileMeta(
  file: string,
  options: { task?: string; model?: string } = {},
  cache: ResultsCache = new ResultsCache(),
): Promise<LmEvalFileMeta> {
  const name = basename(file);
  const dir = dirname(file);
  const results = await cache.get(dir);
  let task: string;
  let taskSource: string;
  let date: string | undefined;
  const sm = parseSamplesName(name);
  const wm = WRITE_OUT_NAME.exec(name);
  let argsPrefix: string | undefined;
  if (options.task !== undefined) {
    task = options.task;
    taskSource = 'option';
    if (sm) date = sm.date;
  } else if (sm) {
    task = sm.task;
    date = sm.date;
    taskSource = 'file name';
  } else if (wm) {
    task = wm[1]!;
    taskSource = 'file name';
  } else {
    const s = stem(name);
    // v0.4.0-0.4.2: `<model_args with / and = as __>_<task>.jsonl`; the task list of results.json settles where the task starts.
    const known = results
      .flatMap((r) => r.tasks)
      .filter((t) => s === t || s.endsWith(`_${t}`))
      .sort((a, b) => b.length - a.length)[0];
    if (known !== undefined) {
      task = known;
      taskSource = 'results.json tasks';
      if (s.length > known.length) argsPrefix = s.slice(0, s.length - known.length - 1);
    } else if (s.includes('__')) {
      const tail = s.slice(s.lastIndexOf('__') + 2);
      const us = tail.indexOf('_');
      task = us >= 0 ? tail.slice(us + 1) : tail;
      argsPrefix = s.slice(0, s.length - task.length - 1);
      taskSource = 'guessed from file name (model_args prefix)';
    } else {
      task = s.replace(/[_-]?(write_?out(_info)?|logs?|samples?|outputs?)$/i, '') || s;
      taskSource = task === s ? 'file name' : 'guessed from file name';
    }
  }
  let model: string | undefined = options.model;
  let modelSource = 'option';
  const withModel = results.filter((r) => r.model !== undefined);
  if (model === undefined && date !== undefined) {
    const same = withModel.find((r) => r.date === date);
    if (same) {
      model = same.model!;
      modelSource = same.modelSource!;
    }
  }
  if (model === undefined && withModel.length > 0) {
    model = withModel[0]!.model!;
    modelSource = withModel[0]!.date !== undefined && date !== undefined ? `${withModel[0]!.modelSource} (same folder, other run)` : withModel[0]!.modelSource!;
  }
  if (model === undefined && argsPrefix !== undefined) {
    const m = modelFromArgs(
      argsPrefix
        .split(',')
        .map((p) => p.replace('__', '='))
        .join(','),
    );
    if (m !== undefined) {
      model = m.replace(/__/g, '/');
      modelSource = 'file name model_args';
    }
  }
  if (model === undefined) {
    model = modelFromFolder(basename(dir));
    modelSource = 'folder name';
  }
  const meta: LmEvalFileMeta = { file, task, taskSource, model, modelSource };
  if (date !== undefined) meta.date = date;
  const cfg = results.find((r) => r.date === date && r.configs[task])?.configs[task] ?? results.find((r) => r.configs[task])?.configs[task];
  if (cfg) meta.config = cfg;
  return meta;
}
