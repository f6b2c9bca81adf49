import { LlmNrmError } from '@llm-nrm/core';

/** One reported alternative of a top-k list, OpenAI style. */
export interface TopLogprob {
  token: string;
  logprob: number;
}

/** A top-k list: OpenAI/Inspect `[{token, logprob}]`, or a HELM-classic `{token: logprob}` map. */
export type TopLogprobs = readonly TopLogprob[] | Readonly<Record<string, number>>;

export interface OptionDistributionOptions {
  /**
   * The label of each option, in the order the options are wanted (usually displayed order).
   * Default: `A`, `B`, ... for `nOptions` options. Digit labels (`['1', '2', ...]`) work the same way.
   */
  labels?: readonly string[];
}

export interface OptionDistribution {
  /**
   * Distribution over the options (renormalised over the option labels), or `null` when no option
   * label appears in the list (nothing to normalise: the caller falls back to a hard answer).
   */
  probs: number[] | null;
  /** Mass outside the option labels: `1 - sum of option-label probabilities`, clipped at 0. */
  leakage: number;
  /** Per option, whether any variant of its label was in the reported list (false: given zero mass). */
  reported: boolean[];
}

// Characters that tokenizers glue to a label: whitespace, SentencePiece "▁", GPT-2 byte-level "Ġ"/"Ċ".
const EDGE_SPACE = /^[\s\u2581\u0120\u010a]+|[\s\u2581\u0120\u010a]+$/g;

/**
 * The option label a token stands for, or undefined. Variants `" A"`, `"A"`, `"(A"`, `"A)"`, `"(A)"`,
 * `"A."`, `"A:"` all name `A`. Matching is case-sensitive on purpose: a lowercase `"a"` is usually the
 * English article, not the option.
 */
export function tokenLabel(token: string, labelSet: ReadonlySet<string>): string | undefined {
  let t = token.replace(EDGE_SPACE, '');
  if (t.startsWith('(') || t.startsWith('[')) t = t.slice(1);
  if (t.endsWith(')') || t.endsWith(']') || t.endsWith('.') || t.endsWith(':')) t = t.slice(0, -1);
  t = t.replace(EDGE_SPACE, '');
  return labelSet.has(t) ? t : undefined;
}

/** Default labels for `n` options: A..Z. */
export function letterLabels(n: number): string[] {
  if (!Number.isInteger(n) || n < 1 || n > 26) {
    throw new LlmNrmError('INVALID_OPTIONS', `invalid option count: ${n} (letter labels cover 1 to 26)`);
  }
  return Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
}

/**
 * The distribution over option labels from one answer position's top-k token list (paper, "Data").
 *
 * With m_k = sum over reported tokens t that name label k of exp(logprob_t) (variants merged by
 * summing their probabilities):
 *
 *   probs_k  = m_k / sum_k' m_k'                 (softmax of the option-letter logprobs)
 *   leakage  = max(0, 1 - sum_k m_k)             (mass on non-option tokens, over the reported list)
 *
 * Options whose label is absent from the top-k get zero mass (`reported[k] = false`); the paper keeps
 * them at zero rather than inventing a floor. Leakage is a lower bound on the true leakage when the
 * list is truncated (top-20), since unreported tokens are not counted anywhere.
 *
 * @example
 * optionDistributionFromTopLogprobs([{ token: ' A', logprob: -0.1 }, { token: 'B', logprob: -2.5 }], 4)
 * // probs ≈ [0.917, 0.083, 0, 0], leakage ≈ 0.013, reported [true, true, false, false]
 */
export function optionDistributionFromTopLogprobs(topLogprobs: TopLogprobs, nOptions: number, options: OptionDistributionOptions = {}): OptionDistribution {
  const labels = options.labels ?? letterLabels(nOptions);
  if (labels.length !== nOptions) {
    throw new LlmNrmError('INVALID_OPTIONS', `${labels.length} labels for ${nOptions} options`);
  }
  const index = new Map<string, number>();
  labels.forEach((l, i) => {
    if (index.has(l)) throw new LlmNrmError('INVALID_OPTIONS', `duplicate option label: ${JSON.stringify(l)}`);
    index.set(l, i);
  });
  const labelSet = new Set(labels);
  const mass = new Array<number>(nOptions).fill(0);
  const reported = new Array<boolean>(nOptions).fill(false);
  const entries: [string, number][] = Array.isArray(topLogprobs)
    ? (topLogprobs as readonly TopLogprob[]).map((t) => [t.token, t.logprob])
    : Object.entries(topLogprobs as Record<string, number>);
  for (const [token, logprob] of entries) {
    if (typeof logprob !== 'number' || Number.isNaN(logprob)) {
      throw new LlmNrmError('INVALID_PROBS', `invalid logprob for token ${JSON.stringify(token)}: ${JSON.stringify(logprob)}`);
    }
    if (typeof token !== 'string') continue;
    const label = tokenLabel(token, labelSet);
    if (label === undefined) continue;
    const k = index.get(label)!;
    mass[k] += Math.exp(logprob);
    reported[k] = true;
  }
  let total = 0;
  for (const m of mass) total += m;
  const leakage = Math.max(0, 1 - total);
  if (!(total > 0)) return { probs: null, leakage, reported };
  return { probs: mass.map((m) => m / total), leakage, reported };
}
