import { readFile } from 'node:fs/promises';
import { LlmNrmError, parseBundle, type CalibrationBundle } from '@llm-nrm/core';

/** Read and validate a calibration bundle file (core's `parseBundle`); an unreadable file is an IO error naming it. */
export async function readBundle(path: string): Promise<CalibrationBundle> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  return parseBundle(text, path);
}
