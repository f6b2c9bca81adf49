// @llm-nrm/analysis: information, rank agreement, item quality and the paper's experiments.
// Pure TypeScript (no node: imports) so the leaderboard can run it in a browser.
export { gaussHermite } from './gaussHermite.js';
export { informationSplit } from './informationSplit.js';
export { abilityGrid, binaryInformation, itemInformation, type Abilities, type ItemInformation, type ItemInformationOptions } from './itemInformation.js';
export { llmInformation, type LlmInformation, type LlmInformationOptions } from './llmInformation.js';
export { fleetInformation } from './fleetInformation.js';
export { testInformation, type TestInformation } from './testInformation.js';
export { informationSummary, type InformationSummaryRow } from './informationSummary.js';
export { informativeDistractors } from './informativeDistractors.js';
export { itemQuality, type ItemFlag, type ItemQuality, type ItemQualityOptions } from './itemQuality.js';
export { keyAudit, type DeadDistractor, type KeyAudit, type KeyAuditOptions, type KeyDisagreement, type PositionDriven } from './keyAudit.js';
export { extendBundle, type ExtendBundleOptions, type ExtendedBundle } from './extendBundle.js';
export { kendallTau } from './kendallTau.js';
export { rank } from './rank.js';
export { pearson } from './pearson.js';
export { spearmanRho } from './spearmanRho.js';
export { bootstrapSd, type BootstrapOptions } from './bootstrapSd.js';
export { parseRanking, type Ranking } from './parseRanking.js';
export { rankAgreement, type RankAgreement, type RankAgreementRow } from './rankAgreement.js';
export { cellFolds, foldMask, llmFolds } from './cellFolds.js';
export { ABLATIONS, modelSpecs, type ModelSpec } from './modelSpec.js';
export {
  crossValidate,
  crossValidateFold,
  crossValidationOf,
  crossValidationPlan,
  type CrossValidateOptions,
  type CrossValidation,
  type CvFoldMetrics,
  type CvFoldOptions,
  type CvRow,
  type CvTask,
  type MeanSd,
} from './crossValidate.js';
export { llmCrossValidate, type LlmCrossValidateOptions, type LlmCrossValidation, type LlmCvRow, type ThetaEstimator } from './llmCrossValidate.js';
export { selectItems, type ItemSelection, type SelectItemsOptions } from './selectItems.js';
export { selectForRange, type RangeSelection, type SelectForRangeOptions } from './selectForRange.js';
export { accuracyAt, accuracyCurve, predictAccuracy, type AccuracyCurve, type AccuracyCurveOptions } from './accuracyCurve.js';
export { predictTinyAccuracy, type TinyAccuracyEstimator, type TinyRunRow } from './tinyAccuracyEstimator.js';
export { STUDY_METHODS, selectionStudy, type SelectionStudy, type SelectionStudyOptions, type SelectionStudyRow, type StudyMethod } from './selectionStudy.js';
export { calibratedLlmFolds, heldOutThetas, type CalibratedLlmFold, type CalibratedLlmFoldsOptions } from './calibratedLlmFolds.js';
export { poolFromBundle, poolFromLayout, type AdaptivePool } from './adaptivePool.js';
export { adaptiveInformation, mulberry32, nextAdaptiveItems, roundRandom, type NextItemsOptions } from './nextAdaptiveItems.js';
export { ADAPTIVE_DEFAULTS, adaptiveStep, type AdaptiveOptions, type AdaptiveState, type AdaptiveStop } from './adaptiveStep.js';
export {
  adaptiveStudy,
  adaptiveStudyFolds,
  adaptiveStudyOf,
  type AdaptivePoint,
  type AdaptiveSePoint,
  type AdaptiveStudy,
  type AdaptiveStudyFoldParts,
  type AdaptiveStudyOptions,
} from './adaptiveStudy.js';
export {
  compression,
  compressionFolds,
  compressionOf,
  type Compression,
  type CompressionFoldParts,
  type CompressionOptions,
  type CompressionPoint,
  type CompressionScoring,
} from './compression.js';
export {
  fitRunAccuracy,
  ownAccuracy,
  predictRunAccuracy,
  type RunAccuracyModel,
  type RunAccuracyPrediction,
  type RunAccuracyRow,
  type RunFeatures,
} from './runAccuracy.js';
export { SELECTION_FLAGS, unflaggedItems, type LeftOutItem } from './unflaggedItems.js';
export { runAccuracyStudy, type RunAccuracyStudy, type RunAccuracyStudyOptions } from './runAccuracyStudy.js';
export { calibrationCurve, type CalibrationCurve, type CalibrationCurveOptions, type CalibrationPoint } from './calibrationCurve.js';
export type { ExperimentFitOptions, FitFn, FitLike } from './internal/fitting.js';
export { placeAmong, rankIntervals, RANK_LEVEL, type RunPlacement, type RankIntervalOptions, type RankIntervals } from './rankIntervals.js';
export { runRankInterval, type RunRank } from './runRankInterval.js';
export { predictPackageAccuracy, predictPackageCurve, type PackageAccuracy, type PackageAccuracyCurve, type PackageRun } from './packageAccuracy.js';
export { TINY_NUISANCE, tinyRunRecords, tinyRunScores, type TinyRunScore } from './tinyRunScores.js';
export { llmParameterErrors, type LlmParameterErrors } from './llmParameterErrors.js';
