import type { ResponseRecord } from '@llm-nrm/core';

/** Harness formats the readers understand (`--from`). */
export type FormatName = 'lm-eval-harness' | 'helm' | 'openai-evals' | 'inspect' | 'tidy' | 'naep-rotations';

/** How lm-eval per-option loglikelihoods become scores: raw sum, per character (acc_norm), per byte. */
export type OptionScoring = 'raw' | 'chars' | 'bytes';

/** What to do with several runs of one model and task. */
export type ReplicatePolicy = 'latest' | 'keep';

export interface ReadOptions {
  /** Option scoring for per-option loglikelihood formats. Default 'raw'. */
  score?: OptionScoring;
  /** lm-eval: which filter to keep when a document has several (default: the first seen, reported in notes). */
  filter?: string;
  /** Override the model id the reader would infer. */
  model?: string;
  /**
   * Several timestamped runs of one model and task (lm-eval `samples_<task>_<date>.jsonl`): keep
   * the latest run and say so (default), or keep every run as replicates.
   */
  replicates?: ReplicatePolicy;
  /** Collects what was skipped and why, and notes (which filter was picked, format version...). */
  report?: ReadReport;
  /**
   * Called just before a record is yielded with the file and line it was read from, by readers
   * that know them (lm-eval): a folder's records then name their samples file in messages.
   */
  onSource?: (file: string, line: number) => void;
}

/** One thing a reader could not use, with where it was. Nothing is dropped silently. */
export interface ReadIssue {
  file: string;
  line?: number;
  /** Short reason: `records broken across lines`, `not a multiple-choice run (generation)`... */
  reason: string;
  /**
   * `damage`: data that should have been read was lost (cut or corrupt file, broken record, bad
   * value): an error unless `--skip-invalid`. `not-applicable`: a valid unit outside what llm-nrm
   * reads (a generation run, an aggregates-only results file): listed, never an error.
   * Default: from the reason (`issueKind`).
   */
  kind?: IssueKind;
}

export type IssueKind = 'damage' | 'not-applicable';

/**
 * Reasons of units that are valid harness output but hold no multiple-choice responses: the
 * readers' wording for them. Anything else a reader skips is damage.
 */
const NOT_APPLICABLE: readonly RegExp[] = [
  /not (a )?multiple.choice/i,
  /aggregate metrics only/i,
  /Git LFS pointer/,
  /references are redacted/,
  /log has no samples/,
  /^empty file: no samples$/,
  /^not lm-eval samples/,
  /not an OpenAI evals record log/,
  /log has no sampling\/match events/,
  /^no (HELM run folders|\.eval or \.json logs|\.jsonl or \.log files)/,
  /^baseline pseudo-model/,
  // NAEP response rows for items the items file lacks: the data set's own gap, no key to score by.
  /^item_id .* not in naep-.*-items\.jsonl$/,
];

/** Whether a skipped unit is damage (an error unless skipping is asked for) or not applicable. */
export function issueKind(issue: ReadIssue): IssueKind {
  if (issue.kind !== undefined) return issue.kind;
  return NOT_APPLICABLE.some((re) => re.test(issue.reason)) ? 'not-applicable' : 'damage';
}

export interface ReadReport {
  /** Records yielded. */
  records: number;
  /** Units (lines, instances, samples, whole files) skipped, each with its reason. */
  skipped: ReadIssue[];
  /** Informational notes (format version detected, filter chosen, leakage summary...). */
  notes: string[];
}

export function newReport(): ReadReport {
  return { records: 0, skipped: [], notes: [] };
}

/** A reader: streams tidy records from a file or folder, recording skips in `options.report`. */
export type Reader = (path: string, options?: ReadOptions) => AsyncGenerator<ResponseRecord>;
