/**
 * The tidy response record (DESIGN.md, "The data that flows"): one per model x item presentation.
 * Exactly one of `probs`, `logprobs`, `choice` carries the response.
 */
export interface ResponseRecord {
  /** The LLM (examinee) id. */
  model: string;
  /** Item id, unique in the bank; adapters build `<benchmark>/<doc id>`. */
  item: string;
  /** Source benchmark or task. */
  benchmark?: string;
  /**
   * 0-based index of the keyed (correct) option, in `options` (content) order. Absent: the bank
   * has no key for this item (key-free fitting, `keyFree` on its ItemSpec).
   */
  key?: number;
  /** Option texts in content order. */
  options?: string[];
  /** A distribution over the options (content order); renormalised when it does not sum to 1. */
  probs?: number[];
  /** Natural-log scores over the options (content order); softmaxed. `-Infinity` = unreported. */
  logprobs?: number[];
  /** A hard answer (content index), or `null` for an unparsable answer (missing, never wrong). */
  choice?: number | null;
  /** Number of options when neither `options` nor a distribution gives it (hard answers). */
  nOptions?: number;
  /** Displayed position of each option (content order) when the harness shuffled or rotated them. */
  position?: number[];
  /** Probability mass the model put outside the option tokens. */
  leakage?: number;
  /** The exact context the model was scored on (few-shot examples included). */
  prompt?: string;
  /** The exact scored strings, content order (e.g. `" A"`, or the option texts). */
  continuations?: string[];
  /** A multiple-input item's per-option contexts (lm-eval's winogrande form: option k scored as `continuations[k]` after `contexts[k]`); never with `prompt`. */
  contexts?: string[];
  /** Where the item came from in its harness. */
  source?: ItemSource;
}

/** Where an item came from: harness, task, document id and split (each optional but `harness`). */
export interface ItemSource {
  harness: string;
  task?: string;
  docId?: string;
  split?: string;
  /** The harness's hash of the source document (lm-eval `doc_hash`): tells apart items that share an id. */
  docHash?: string;
}

/** Where a record came from, for error messages. */
export interface RecordSource {
  file?: string;
  line?: number;
}

/** An item of a bank: id, key, option count and optional descriptive fields. */
export interface ItemSpec {
  id: string;
  /** The keyed option; for a `keyFree` item the fleet-consensus anchor (`consensusKeys`), never a key. */
  key: number;
  /**
   * True when no record gave the item a key: `key` then only anchors the option-level families'
   * identification (theta's direction, the gate's difficulty) and keyed outputs refuse it.
   */
  keyFree?: true;
  nOptions: number;
  benchmark?: string;
  options?: string[];
  /** Where the item came from in its harness (from its first record that says). */
  source?: ItemSource;
  /** `itemContentSha256(prompt, continuations)` of the text the item was calibrated on. */
  contentSha256?: string;
}

/** Model families `fit` understands. */
export type ModelName = 'llm-nrm' | 'nrm' | 'nrm-hard' | '1pl' | '2pl' | '3pl' | '4pl';

export const MODEL_NAMES: readonly ModelName[] = ['llm-nrm', 'nrm', 'nrm-hard', '1pl', '2pl', '3pl', '4pl'];

/** Which LLM-NRM processes are switched on (ablations switch them off one at a time). */
export interface LlmNrmParts {
  /** Per-LLM sharpness s_j = softplus(sbar_j). Off: s_j = 1. */
  sharpness: boolean;
  /** Per-LLM positional bias delta_jk over displayed positions. Off: 0. */
  position: boolean;
  /** Difficulty-gated guessing fallback (rho_jk, w0, kappa). Off: G = 0. */
  fallback: boolean;
}

export const ALL_PARTS: LlmNrmParts = { sharpness: true, position: true, fallback: true };
export const NO_PARTS: LlmNrmParts = { sharpness: false, position: false, fallback: false };
