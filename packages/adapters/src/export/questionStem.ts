export { questionStem };

const LABELED = /^\s*\(?([A-Z])[.):]\s?(.*)$/;
const ANSWER_CUE = /^\s*Answer\s*:?\s*$/i;

/**
 * An item's prompt without the option lines it already lists. lm-eval's MMLU form (`question`,
 * `A. opt`, `B. opt`, ..., `Answer:`) carries the options in the prompt; Inspect's
 * multiple_choice and the OpenAI-evals samples list the options themselves, so a prompt passed
 * through whole would show every option twice. The lines are removed only when they are the
 * options in order (labels A, B, ... with the option texts), with the `Answer:` cue after them;
 * any other prompt is returned as it is.
 */
function questionStem(prompt: string, options: readonly string[]): string {
  const lines = prompt.replace(/\s+$/, '').split('\n');
  let end = lines.length;
  if (end > 0 && ANSWER_CUE.test(lines[end - 1]!)) end--;
  const start = end - options.length;
  if (options.length === 0 || start < 0) return prompt;
  for (let k = 0; k < options.length; k++) {
    const m = LABELED.exec(lines[start + k]!);
    if (m === null || m[1] !== String.fromCharCode(65 + k) || m[2]!.trim() !== options[k]!.trim()) return prompt;
  }
  return lines.slice(0, start).join('\n').replace(/\s+$/, '');
}
