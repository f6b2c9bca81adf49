export { LlmNrmError, isLlmNrmError, type LlmNrmErrorCode } from './errors.js';
export {
  ALL_PARTS, MODEL_NAMES, NO_PARTS, type ItemSource, type ItemSpec, type LlmNrmParts, type ModelName, type RecordSource, type ResponseRecord,
} from './types.js';
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
export { DIFFICULTY_BOUND, DIFFICULTY_EPS, computeDifficulties, difficultyBackward, itemDifficultyGrad } from './difficulty.js';
export { DEFAULT_PRIORS, finishLlmNrmPass, type EvalScope, type Objective, type Priors } from './objective.js';
export { llmNrmObjective } from './families/llmNrm/objective.js';
export { binaryObjective } from './families/binary/objective.js';
export { type CurvatureAt, type CurvatureOptions, type ModelFamily } from './families/family.js';
export { llmNrmCurvatureFromSums, type LlmNrmCurvatureSums } from './families/llmNrm/curvature.js';
export { familyOfLayout, getFamily } from './families/registry.js';
export { engineNames, getEngine, registerEngine, resolveEngine, tsEngine, type CurvatureBuilder, type Engine } from './engine.js';
export { minimizeAdam } from './fit/adam.js';
export { minimizeLbfgs } from './fit/lbfgs.js';
export { type OptimizeOptions, type OptimizeProgress, type OptimizeResult, type OptimizerName } from './fit/optimizer.js';
export { freezeItems, standardizeTheta, standardized, withThetaSd } from './fit/identification.js';
export { inverseFirstDiagonal, thetaStandardErrors, type StandardErrorOptions, type ThetaStandardErrors } from './fit/standardErrors.js';
export { fit, initialParameters, itemDifficulties, modelObjective, type FitOptions, type FitResult } from './fit.js';
export { predictor, wrongOptionShares, type Predictor } from './predict.js';
export { itemContentSha256 } from './itemContent.js';
export { randomSource, shuffled, type Random } from './random.js';
export { PAPER_OPTION_WEIGHTS, bankRecords, simulateFleet, type SimulateOptions, type SimulatedFleet } from './simulate.js';
export {
  BUNDLE_SCHEMA_VERSION, CALIBRATION_BUNDLE_SCHEMA, bundleItems, bundleParameters, parseBundle, toBundle, validateBundle,
  type BundleItem, type BundleLlm, type BundleWarning, type CalibrationBundle,
} from './bundle.js';
export { FLEET_NUISANCE_BELOW, scoreResponses, type LlmScore, type ScoreOptions, type ScoreResult } from './score.js';
export { gridGoldenMinimum } from './internal/gridGoldenMinimum.js';
export { SCORE_P_FLOOR, fleetNuisance, minimiseTheta, minimiseThetaSharpness, scoreThetaAlone } from './scoreThetaAlone.js';
export { GLOBAL_STEP_CAP, ITEM_STEP_CAP, LLM_STEP_CAP, blockPreconditioner, type BlockPreconditioner } from './curvature.js';
