import { describe, expect, it } from 'vitest';
import { questionStem } from './questionStem.js';

describe('questionStem', () => {
  it("drops the option lines of lm-eval's MMLU prompt form (and its Answer: cue)", () => {
    const prompt = 'The following are multiple choice questions.\n\nWhat is 2 + 2?\nA. 3\nB. 4\nC. 5\nD. 22\nAnswer:';
    expect(questionStem(prompt, ['3', '4', '5', '22'])).toBe('The following are multiple choice questions.\n\nWhat is 2 + 2?');
    expect(questionStem('Pick one:\n(A) red\n(B) blue', ['red', 'blue'])).toBe('Pick one:');
  });

  it('keeps a prompt whose last lines are not exactly the options in order', () => {
    for (const [prompt, options] of [
      ['What is 2 + 2?\nAnswer:', ['3', '4']],
      ['What is 2 + 2?\nA. 4\nB. 3\nAnswer:', ['3', '4']],
      ['Q?\nA. 3\nC. 4\nAnswer:', ['3', '4']],
    ] as const) {
      expect(questionStem(prompt, options)).toBe(prompt);
    }
  });
});
