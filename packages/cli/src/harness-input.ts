import { convertPaths, newReport, type ReadReport } from '@llm-nrm/adapters';
import type { ResponseRecord } from '@llm-nrm/core';

/**
 * Every record of a tidy file or any harness output (file or folder; format detected per path as
 * `convert` does). The one seam where `score` and `publish` read responses: when adapters grow a
 * shared "read any input" function (issue 8), this calls it.
 */
export async function readAnyResponses(path: string, options: { skipInvalid?: boolean; report?: ReadReport } = {}): Promise<{ records: ResponseRecord[]; report: ReadReport; formats: string[] }> {
  const report = options.report ?? newReport();
  const { records, summary } = convertPaths([path], { report, ...(options.skipInvalid ? { skipInvalid: true } : {}) });
  const out: ResponseRecord[] = [];
  for await (const r of records) out.push(r);
  const formats = [...new Set(summary.inputs.map((i) => i.format))];
  return { records: out, report, formats };
}
