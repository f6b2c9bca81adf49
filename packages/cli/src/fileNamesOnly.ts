import { basename } from 'node:path';
import type { CalibrationBundle } from '@llm-nrm/core';

export { bundleWithFileNames, commandWithFileNames };

/**
 * A recorded command line with every absolute path cut to its file name: what a shared package
 * may say of how it was made, without the publisher's folders (`/home/ana/runs/x.jsonl` -> `x.jsonl`).
 */
function commandWithFileNames(command: string): string {
  return command.replace(/(^|[\s='"])(\/[^\s'"]*)/g, (_, lead: string, path: string) => lead + basename(path));
}

/** A bundle whose provenance (input paths, command) names files only: see commandWithFileNames. */
function bundleWithFileNames(bundle: CalibrationBundle): CalibrationBundle {
  const p = bundle.provenance;
  return {
    ...bundle,
    provenance: {
      ...p,
      ...(p.inputs !== undefined ? { inputs: p.inputs.map((i) => ({ ...i, path: basename(i.path) })) } : {}),
      ...(p.command !== undefined ? { command: commandWithFileNames(p.command) } : {}),
    },
  };
}
