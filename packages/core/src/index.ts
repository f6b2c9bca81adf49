export { LlmNrmError, isLlmNrmError, type LlmNrmErrorCode } from './errors.js';
export { MODEL_NAMES, type ItemSource, type ItemSpec, type LlmNrmParts, type ModelName, type RecordSource, type ResponseRecord } from './types.js';
export { parseResponseRecord, describeValue } from './record/parseResponseRecord.js';
export {
  contentHash, describeItemVersions, resolveItemVersions,
  type ItemVersion, type ItemVersionConflict, type ItemVersionPolicy, type ResolvedItemVersions,
} from './record/resolveItemVersions.js';
export { duplicateRows, type DuplicateRows } from './record/duplicateRows.js';
export { checkDesign, type DesignGroup, type DesignReport } from './design/checkDesign.js';
export {
  MAX_OPTIONS, argmaxAt, bankColumns, naturalCompare, bankFromRecords, bankWidth, correctness, hardenBank, observedCount,
  recordDistribution, withObserved, type BankFromRecordsOptions, type BankStats, type ResponseBank,
} from './bank.js';
export {
  binaryLayout, freeMask, llmNrmLayout, llmParamIndices, sigmoid, softplus, softplusInv,
  type BinaryLayout, type Layout, type LlmNrmLayout,
} from './layout.js';
export { DIFFICULTY_BOUND, DIFFICULTY_EPS, computeDifficulties, difficultyBackward } from './difficulty.js';
export { DEFAULT_PRIORS, binaryObjective, llmNrmObjective, type EvalScope, type Objective, type Priors } from './objective.js';
export {
  minimizeAdam, minimizeLbfgs, type OptimizeOptions, type OptimizeProgress, type OptimizeResult, type OptimizerName,
} from './optimize.js';
export {
  ALL_PARTS, NO_PARTS, curvatureDiagonal, fit, freezeItems, standardizeTheta, standardized, withThetaSd, initialParameters, inverseFirstDiagonal, itemDifficulties, modelObjective,
  thetaStandardErrors, type FitOptions, type FitResult,
} from './fit.js';
export { predictor, wrongOptionShares, type Predictor } from './predict.js';
export { itemContentSha256 } from './itemContent.js';
export { randomSource, shuffled, type Random } from './random.js';
export { PAPER_OPTION_WEIGHTS, bankRecords, simulateFleet, type SimulateOptions, type SimulatedFleet } from './simulate.js';
export {
  BUNDLE_SCHEMA_VERSION, CALIBRATION_BUNDLE_SCHEMA, bundleItems, bundleParameters, parseBundle, toBundle, validateBundle,
  type BundleItem, type BundleLlm, type BundleWarning, type CalibrationBundle,
} from './bundle.js';
export { FLEET_NUISANCE_BELOW, scoreResponses, type LlmScore, type ScoreOptions, type ScoreResult } from './score.js';
export { SCORE_P_FLOOR, fleetNuisance, minimiseTheta, scoreThetaAlone } from './scoreThetaAlone.js';
export { ITEM_STEP_CAP, LLM_STEP_CAP, blockPreconditioner, type BlockPreconditioner } from './curvature.js';
export { itemDifficultyGrad } from './difficulty.js';
