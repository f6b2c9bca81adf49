/** `samples_<task>_<date>.jsonl` (gzipped or not): the lm-eval samples file name. */
export const SAMPLES_NAME = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl?(?:\.gz)?$/;

/** Parse `samples_<task>_<date>.jsonl` (task = text between `samples_` and the last `_`). Pure, browser-safe. */
export function parseSamplesName(name: string): { task: string; date: string } | null {
  const m = SAMPLES_NAME.exec(name);
  return m ? { task: m[1]!, date: m[2]! } : null;
}
