import type { TinyPackage } from './tinyPackage.js';

/** A file an exporter writes, relative to the package folder. */
export interface ExportedFile {
  path: string;
  content: string;
}

/**
 * The seam between a tiny package and a harness (DESIGN.md, use 4): one exporter per harness, in
 * `HARNESS_EXPORTERS`. Each writes the files its harness runs, and says in the README how.
 */
export interface HarnessExporter {
  /** `--harness` name. */
  readonly name: string;
  /** Files of this harness, paths relative to the package folder (`lm-eval/...`). */
  files(pkg: TinyPackage): ExportedFile[];
  /**
   * README section: the command to run and what the output holds. Paths are relative to the
   * package folder (the commands run from it): a package says nothing of the publisher's machine.
   */
  readme(pkg: TinyPackage): string;
  /**
   * Why this harness cannot run the package as calibrated (e.g. multiple-input items, which need
   * per-option contexts), or null when it can. `writeTinyPackage` refuses with the reason.
   */
  unsupported?(pkg: TinyPackage): string | null;
}
