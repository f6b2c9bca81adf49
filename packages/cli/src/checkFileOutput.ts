import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LlmNrmError } from '@llm-nrm/core';
import { assertOutputIsNotInput, excludeFromWalks } from '@llm-nrm/adapters';

export { checkFileOutput };

/**
 * Before a long fit: the output file's folder exists, the output is none of the inputs (the output
 * policy), and folder walks of the inputs never read it back. `-` (standard output) passes.
 */
async function checkFileOutput(output: string, inputs: readonly string[]): Promise<void> {
  if (output === '-') return;
  try {
    await access(dirname(output));
  } catch {
    throw new LlmNrmError('IO', `output folder does not exist: ${dirname(output)}`, { file: output });
  }
  await assertOutputIsNotInput(output, inputs);
  excludeFromWalks(output);
}
