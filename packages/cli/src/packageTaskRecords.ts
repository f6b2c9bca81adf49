import { basename } from 'node:path';
import type { RecordSource, ResponseRecord } from '@llm-nrm/core';
import { parseSamplesName, type AnyResponses } from '@llm-nrm/adapters';

export { packageTaskRecords, type PackageTaskRecords };

/** A tiny package's own responses from an output folder that may hold other tasks' too. */
interface PackageTaskRecords {
  records: ResponseRecord[];
  sources: (RecordSource & { file: string })[];
  /** The readers' notes and skipped units of the kept files only. */
  notes: string[];
  skipped: AnyResponses['summary']['skipped'];
  /** Responses left out per other task. */
  otherTasks: Map<string, number>;
}

/**
 * The responses of one lm-eval task (a tiny package's) and what the readers said about their
 * files. `lm_eval --tasks tiny_a,tiny_b` writes both tasks' samples and one results file into
 * one folder; each package scores its own task from it. Other tasks' samples files (by their
 * records' task, or by the `samples_<task>_<date>` name of a file that yielded none) are left
 * out with their notes and skipped units, so another task's damage is not this run's. When no
 * response is of `task`, everything is kept: the caller says the output is of another task.
 */
function packageTaskRecords(input: Pick<AnyResponses, 'records' | 'sources' | 'summary'>, task: string): PackageTaskRecords {
  const other = (r: ResponseRecord) => r.source?.harness === 'lm-eval' && r.source.task !== undefined && r.source.task !== task;
  const keep: number[] = [];
  const otherTasks = new Map<string, number>();
  const otherFiles = new Set<string>();
  const ownFiles = new Set<string>();
  input.records.forEach((r, i) => {
    if (other(r)) {
      otherTasks.set(r.source!.task!, (otherTasks.get(r.source!.task!) ?? 0) + 1);
      otherFiles.add(input.sources[i]!.file);
    } else {
      keep.push(i);
      ownFiles.add(input.sources[i]!.file);
    }
  });
  const all = { records: input.records, sources: input.sources, notes: input.summary.notes, skipped: input.summary.skipped };
  if (keep.length === 0 || otherTasks.size === 0) return { ...all, otherTasks: new Map() };
  const isOther = (file: string): boolean => {
    if (ownFiles.has(file)) return false;
    if (otherFiles.has(file)) return true;
    const named = parseSamplesName(basename(file));
    return named !== null && named.task !== task;
  };
  // Notes start with the file they are about (`<file>: <layout>; task ...`).
  const noteFile = (n: string) => [...otherFiles].find((f) => n.startsWith(`${f}:`));
  return {
    records: keep.map((i) => input.records[i]!),
    sources: keep.map((i) => input.sources[i]!),
    notes: input.summary.notes.filter((n) => noteFile(n) === undefined),
    skipped: input.summary.skipped.filter((s) => !isOther(s.file)),
    otherTasks,
  };
}
