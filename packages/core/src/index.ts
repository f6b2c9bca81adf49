// The public API of @llm-nrm/core: what the other packages, the apps and the README's users need.
// Helpers used only inside core stay importable from their modules, not from here.
export { LlmNrmError, isLlmNrmError, type LlmNrmErrorCode } from './errors.js';
export { hasUnprintable, printable } from './printable.js';
export {
  ALL_PARTS,
  MODEL_NAMES,
  NO_PARTS,
  type ItemSource,
  type ItemSpec,
  type LlmNrmParts,
  type ModelName,
  type RecordSource,
  type ResponseRecord,
} from './types.js';
export { parseResponseRecord, describeValue } from './record/parseResponseRecord.js';
export {
  describeItemVersions,
  contentHash,
  resolveItemVersions,
  type ItemVersion,
  type ItemVersionConflict,
  type ItemVersionPolicy,
  type ResolvedItemVersions,
} from './record/resolveItemVersions.js';
export { duplicateRows, type DuplicateRows } from './record/duplicateRows.js';
export { checkDesign, type DesignGroup, type DesignReport } from './design/checkDesign.js';
export {
  MAX_OPTIONS,
  argmaxAt,
  bankFromRecords,
  correctness,
  hardenBank,
  recordDistribution,
  withObserved,
  type BankFromRecordsOptions,
  type BankStats,
  type ResponseBank,
} from './bank.js';
export { binaryLayout, llmNrmLayout, sigmoid, softplus, softplusInv, type BinaryLayout, type Layout, type LlmNrmLayout } from './layout.js';
export { DIFFICULTY_BOUND, DIFFICULTY_EPS, computeDifficulties, difficultyBackward } from './difficulty.js';
export {
  DEFAULT_PRIORS,
  finishItemLosses,
  finishLlmNrmPass,
  priorPrecisions,
  type EvalScope,
  type Objective,
  type PriorPrecisions,
  type Priors,
} from './objective.js';
export { llmNrmObjective } from './families/llmNrm/objective.js';
export { binaryObjective, type BinaryObjectiveOptions } from './families/binary/objective.js';
export type { BinaryCells, BinaryKernel, BinaryKernelFactory } from './families/binary/kernel.js';
export { type BundleMapping, type CurvatureAt, type CurvatureOptions, type FleetNuisance, type LlmPrior, type ModelFamily } from './families/family.js';
export {
  llmNrmCorrectionInputs,
  llmNrmCorrectionsFromSums,
  llmNrmCurvatureFromSums,
  llmNrmRowBlocksFromSums,
  type LlmNrmCorrectionInputs,
  type LlmNrmCurvatureSums,
} from './families/llmNrm/curvature.js';
export { familyOfLayout, freeMask, getFamily, llmParamIndices, optionLevelLayout } from './families/registry.js';
export { getEngine, registerEngine, tsEngine, type CurvatureBuilder, type Engine } from './engine.js';
export { minimizeLbfgs } from './fit/lbfgs.js';
export { serialVectorOps, runParts, sumParts, vectorPart, vectorRange, VECTOR_OP, VECTOR_PARTS, type VectorOpCode, type VectorOps } from './fit/vectorOps.js';
export { itemSweep, type BlockStep, type ItemSweep, type ItemSweepOptions } from './fit/itemSweep.js';
export { type OptimizeOptions, type OptimizeProgress, type OptimizeResult, type OptimizerName } from './fit/optimizer.js';
export { standardizeTheta, standardized } from './fit/identification.js';
export { TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './fit/twinBias.js';
export { inverseFirstDiagonal, thetaStandardErrors, type StandardErrorOptions, type ThetaStandardErrors } from './fit/standardErrors.js';
export { fit, initialParameters, itemDifficulties, modelObjective, SE_MODES, type FitOptions, type FitResult, type SeMode } from './fit.js';
export { UNCONVERGED_DISTANCE, fitConvergence, type FitConvergence } from './fitConvergence.js';
export { predictor, wrongOptionShares, type Predictor } from './predict.js';
export { itemContentSha256, recordContentSha256 } from './itemContent.js';
export { randomSource, type Random } from './random.js';
export { bankRecords, simulateFleet, type SimulateOptions, type SimulatedFleet } from './simulate.js';
export {
  bundleItems,
  bundleParameters,
  parseBundle,
  toBundle,
  validateBundle,
  type BundleItem,
  type BundleLlm,
  type BundleWarning,
  type CalibrationBundle,
} from './bundle.js';
export { FLEET_NUISANCE_BELOW, scoreResponses, type LlmScore, type ScoreOptions, type ScoreResult } from './score.js';
export { gridGoldenMinimum } from './internal/gridGoldenMinimum.js';
export { SCORE_P_FLOOR, fleetNuisance, minimiseTheta, minimiseThetaSharpness } from './scoreThetaAlone.js';
export { blockPreconditioner, type BlockPreconditioner } from './curvature.js';
export type { BlockApplier, PackedSizes } from './internal/blocks.js';
