// `@llm-nrm/core/engine`: what engine authors (engine-wasm, engine-tfjs) and numerical packages need
// beside the main entry (analysis' statistics, the exported scorers' constants): the objectives' and curvature's shared pieces, the optimizer and its
// vector seam, the preconditioner, the engine registry's lookup and the SEs' building blocks. Users
// fitting and scoring need only `@llm-nrm/core`.
export { MAX_OPTIONS, argmaxAt, correctness, hardenBank, recordDistribution } from './data/bank.js';
export { NO_PARTS } from './model/types.js';
export { binaryLayout } from './model/layout.js';
export { DIFFICULTY_BOUND, DIFFICULTY_EPS, computeDifficulties, difficultyBackward } from './model/difficulty.js';
export { finishLlmNrmPass, priorPrecisions, type PriorPrecisions } from './model/objective.js';
export { llmNrmObjective } from './model/llmNrm/objective.js';
export { binaryObjective, type BinaryObjectiveOptions } from './model/binary/objective.js';
export type { BinaryCells, BinaryKernel, BinaryKernelFactory } from './model/binary/kernel.js';
export {
  llmNrmCorrectionInputs,
  llmNrmCorrectionsFromSums,
  llmNrmCurvatureFromSums,
  llmNrmRowBlocksFromSums,
  type LlmNrmCorrectionInputs,
  type LlmNrmCurvatureSums,
} from './model/llmNrm/curvature.js';
export { engineNames, getEngine } from './engines.js';
export { minimizeLbfgs } from './fit/lbfgs.js';
export { serialVectorOps, runParts, sumParts, vectorPart, vectorRange, VECTOR_OP, VECTOR_PARTS, type VectorOpCode, type VectorOps } from './fit/vectorOps.js';
export { standardizeTheta, standardized } from './fit/identification.js';
export { TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './fit/twinBias.js';
export { inverseSpd } from './fit/standardErrors.js';
export { cholesky, cholSolve } from './internal/cholesky.js';
export { initialParameters, modelObjective } from './fit/modelObjective.js';
export { freeMask, llmParamIndices } from './model/registry.js';
export { minimiseTheta, minimiseThetaSharpness } from './score/minimiseTheta.js';
export { HARD_RUN_U, minimiseTinyRun, nuisancePrior, NUISANCE_VAR_FLOOR, TINY_RUN_SWEEPS, type NuisancePrior } from './score/minimiseTinyRun.js';
export { shuffleInPlace } from './simulate/random.js';
export { gridMinimum } from './internal/gridMinimum.js';
export { SCORE_P_FLOOR, fleetNuisance, llmCrossEntropy } from './score/scoreThetaAlone.js';
export { wrongOptionShares } from './model/predict.js';
export { hardOnlyRow } from './model/llmNrm/hardOnlyModels.js';
export { blockPreconditioner, type BlockPreconditioner } from './fit/blockPreconditioner.js';
export type { BlockApplier, PackedSizes } from './internal/blocks.js';
