/** The one record check now lives in core; re-exported for callers of the adapters API. */
export { parseResponseRecord } from '@llm-nrm/core';
export { TEMP_FILE_NAME, excludeFromWalks, folderEntries, isToolOutput, walkFiles, type WalkOptions } from './walk.js';
export { STDOUT_PATH, removeStaleTemps, writeFileAtomic, writeStreamAtomic } from './atomic.js';
export {
  OUTPUT_MARKER,
  assertOutputIsNotInput,
  checkFolderOutput,
  filesUnder,
  writeFileOutput,
  writeFolderOutput,
  type FileOutputOptions,
  type FolderOutputOptions,
  type FolderOutputResult,
  type OutputMarker,
} from './outputPolicy.js';
export {
  issueKind,
  newReport,
  type IssueKind,
  type ReplicatePolicy,
  type FormatName,
  type OptionScoring,
  type ReadIssue,
  type ReadOptions,
  type ReadReport,
  type Reader,
} from './reader.js';
export { readLmEvalHarness, readLmEvalStream, LFS_POINTER_REASON, type LmEvalReadOptions } from './lmeval/readLmEvalHarness.js';
export { lmEvalFileMeta, type LmEvalFileMeta } from './lmeval/lmEvalFileMeta.js';
export { parseSamplesName } from './lmeval/samplesName.js';
export {
  isLmEvalResultsText,
  parseLmEvalResultsText,
  type AdaptiveRound,
  type AdaptiveRunLog,
  type AdaptiveStop,
  type LmEvalResultsText,
} from './lmeval/adaptiveResults.js';
export { writeLmEvalHarness, lmEvalDateStamp, sanitizeModelName, type WriteLmEvalOptions, type WriteLmEvalResult } from './lmeval/writeLmEvalHarness.js';
export { readNaepRotations, NAEP_BASELINES, type NaepReadOptions } from './naep/readNaepRotations.js';
export {
  optionDistributionFromTopLogprobs,
  letterLabels,
  tokenLabel,
  type OptionDistribution,
  type OptionDistributionOptions,
  type TopLogprob,
  type TopLogprobs,
} from './extract/optionDistributionFromTopLogprobs.js';
export { softmaxOptionLogprobs } from './extract/softmaxOptionLogprobs.js';
export { readHelm, helmBenchmark, helmJointChoice } from './helm/readHelm.js';
export { readOpenAIEvals } from './openai/readOpenAIEvals.js';
export { readInspect } from './inspect/readInspect.js';
export { openZip, type ZipArchive, type ZipEntry } from './inspect/openZip.js';
export {
  formatResponseRecord,
  loadBank,
  readResponses,
  readResponsesWithSources,
  tidyFileFormat,
  tidyFormatFromExtension,
  writeResponses,
  TIDY_COLUMNS,
  type LoadBankOptions,
  type ReadResponsesOptions,
  type SourcedRecord,
  type TidyColumnType,
  type TidyFileFormat,
  type WriteResponsesOptions,
} from './tidy/index.js';
export { FORMAT_NAMES, detectFormat, detectInputs, firstObjectKeys, formatFromKeys, type DetectOptions, type DetectedInput } from './detect.js';
export { readAnyResponses, type AnyResponses, type ReadAnyOptions } from './readAnyResponses.js';
export { readAnyBank, type AnyBank, type ReadAnyBankOptions } from './readAnyBank.js';
export { readAnyInto, type AnyRead, type ReadAnyIntoOptions, type RecordSink } from './readAnyInto.js';
export { readsOnce, spoolInputs } from './internal/stdin.js';
export type { ExpectedRecords } from './tidy/expectedRecords.js';
export { reclaimMemory } from './reclaimMemory.js';
export {
  READERS,
  convertPaths,
  convertSourced,
  convertSourcedBatches,
  type ConvertedRecord,
  type ConvertOptions,
  type ConvertRow,
  type ConvertSummary,
} from './convert.js';
export { HARNESS_EXPORTERS, harnessExporter } from './export/exporters.js';
export type { ExportedFile, HarnessExporter } from './export/harnessExporter.js';
export { lmEvalTaskYaml } from './export/lmEvalExporter.js';
export { openAIEvalName } from './export/openaiEvalsExporter.js';
export { NRM_LMEVAL_PY } from './export/nrmLmEvalPy.js';
export { NRM_ADAPTIVE_PY } from './export/nrmAdaptivePy.js';
export { tinyItemsJsonl, type AdaptiveSettings, type TinyAccuracy, type TinyBank, type TinyItem, type TinyPackage } from './export/tinyPackage.js';
export { tinyPackage, writeTinyPackage, type WriteTinyPackageOptions, type WriteTinyPackageResult } from './export/writeTinyPackage.js';
export { readTinyBankFile, readTinyPackage, tinyScoringBundle, type ReadTinyPackage } from './export/readTinyPackage.js';
export { packageRunRecord } from './export/packageRunRecord.js';
export { readBundle } from './readBundle.js';
