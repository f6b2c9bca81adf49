import { LlmNrmError } from '@llm-nrm/core';
import type { ReadReport } from '../reader.js';

/**
 * Run one unit (file, run folder) of a batch: a FORMAT error in it is recorded in the report with
 * its file and line, so the rest of the batch is still read. IO and other errors propagate.
 */
export async function* guardUnit<T>(unit: string, report: ReadReport, body: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* body;
  } catch (e) {
    if (!(e instanceof LlmNrmError) || e.code !== 'FORMAT') throw e;
    // The message starts with "file:line: " (LlmNrmError); `reason` holds the bare message.
    const where = e.file !== undefined ? `${e.file}${e.line !== undefined ? `:${e.line}` : ''}: ` : '';
    const reason = where !== '' && e.message.startsWith(where) ? e.message.slice(where.length) : e.message;
    report.skipped.push({ file: e.file ?? unit, ...(e.line !== undefined ? { line: e.line } : {}), reason });
  }
}
