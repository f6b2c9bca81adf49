import type { ResponseRecord } from '@llm-nrm/core';

/** Harness formats the readers understand (`--from`). */
export type FormatName = 'lm-eval-harness' | 'helm' | 'openai-evals' | 'inspect' | 'tidy' | 'naep-rotations';

/** How lm-eval per-option loglikelihoods become scores: raw sum, per character (acc_norm), per byte. */
export type OptionScoring = 'raw' | 'chars' | 'bytes';

export interface ReadOptions {
  /** Option scoring for per-option loglikelihood formats. Default 'raw'. */
  score?: OptionScoring;
  /** lm-eval: which filter to keep when a document has several (default: the first seen, reported in notes). */
  filter?: string;
  /** Override the model id the reader would infer. */
  model?: string;
  /** Collects what was skipped and why, and notes (which filter was picked, format version...). */
  report?: ReadReport;
}

/** One thing a reader could not use, with where it was. Nothing is dropped silently. */
export interface ReadIssue {
  file: string;
  line?: number;
  /** Short reason: `records broken across lines`, `not a multiple-choice run (generation)`... */
  reason: string;
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
