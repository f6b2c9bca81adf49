// The public API of @llm-nrm/core: what the other packages, the apps and the README's users need.
// Helpers used only inside core stay importable from their modules, not from here; what engine
// authors need (kernels' pieces, the optimizer, the preconditioner) is `@llm-nrm/core/engine`.
export { LlmNrmError, isLlmNrmError, type LlmNrmErrorCode } from './errors.js';
export { printable } from './data/printable.js';
export {
  ALL_PARTS,
  MODEL_NAMES,
  type ItemSource,
  type ItemSpec,
  type LlmNrmParts,
  type ModelName,
  type RecordSource,
  type ResponseRecord,
} from './model/types.js';
export { parseResponseRecord, describeValue } from './record/parseResponseRecord.js';
export {
  describeItemVersions,
  resolveItemVersions,
  type ItemVersion,
  type ItemVersionConflict,
  type ItemVersionPolicy,
  type ResolvedItemVersions,
} from './record/resolveItemVersions.js';
export { duplicateRows, type DuplicateRows } from './record/duplicateRows.js';
export { checkDesign, type DesignGroup, type DesignReport } from './data/checkDesign.js';
export {
  type BankBuilder,
  bankFromRecords,
  type BankFromRecordsOptions,
  type BankStats,
  createBankBuilder,
  emptyBank,
  type ResponseBank,
  withObserved,
} from './data/bank.js';
export { llmNrmLayout, sigmoid, softplus, softplusInv, type BinaryLayout, type Layout, type LlmNrmLayout } from './model/layout.js';
export { DEFAULT_PRIORS, type EvalScope, type Objective, type Priors } from './model/objective.js';
export {
  type BundleMapping,
  type Predictor,
  type CurvatureAt,
  type CurvatureOptions,
  type FleetNuisance,
  type LlmPrior,
  type ModelFamily,
} from './model/family.js';
export { familyOfLayout, getFamily, itemDifficulties, optionLevelLayout } from './model/registry.js';
export { loadEngine, registerEngine, tsEngine, type CurvatureBuilder, type Engine, type EngineLoadOptions, type EngineProvider } from './engines.js';
export { type OptimizeOptions, type OptimizeProgress, type OptimizeResult, type OptimizerName } from './fit/optimizer.js';
export { thetaStandardErrors, type StandardErrorOptions, type ThetaStandardErrors } from './fit/standardErrors.js';
export { fit, SE_MODES, type FitOptions, type FitResult, type SeMode } from './fit/fit.js';
export { predictor } from './model/predict.js';
export { itemContentSha256 } from './data/itemContent.js';
export { fitConvergence, type FitConvergence } from './fit/fitConvergence.js';
export { randomSource, type Random } from './simulate/random.js';
export { bankRecords, simulateFleet, type SimulateOptions, type SimulatedFleet } from './simulate/simulate.js';
export { bundleItems, bundleParameters, parseBundle, toBundle, validateBundle } from './data/bundle.js';
export { requireKeys } from './data/requireKeys.js';
export type { BundleItem, BundleLlm, BundleWarning, CalibrationBundle } from './data/bundleFormat.js';
export { itemCurve, itemLogits, type CurveItem } from './model/itemCurve.js';
export { FLEET_NUISANCE_BELOW, scoreResponses, type LlmScore, type ScoreOptions, type ScoreResult } from './score/score.js';
export { OVERALL, argmaxAccuracies } from './score/argmaxAccuracies.js';
export { place, type Placement } from './score/place.js';
export { restrictBundle } from './data/restrictBundle.js';
