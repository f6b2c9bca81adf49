// `@llm-nrm/core/engine`: what engine authors (engine-wasm, engine-tfjs) and numerical packages need
// beside the main entry: the objectives' and curvature's shared pieces, the optimizer and its
// vector seam, the preconditioner, the engine registry's lookup and the SEs' building blocks. Users
// fitting and scoring need only `@llm-nrm/core`.
export { MAX_OPTIONS, correctness, hardenBank } from './bank.js';
export { NO_PARTS } from './types.js';
export { binaryLayout } from './layout.js';
export { DIFFICULTY_BOUND, DIFFICULTY_EPS, computeDifficulties, difficultyBackward } from './difficulty.js';
export { finishLlmNrmPass, priorPrecisions, type PriorPrecisions } from './objective.js';
export { llmNrmObjective } from './families/llmNrm/objective.js';
export { binaryObjective, type BinaryObjectiveOptions } from './families/binary/objective.js';
export type { BinaryCells, BinaryKernel, BinaryKernelFactory } from './families/binary/kernel.js';
export {
  llmNrmCorrectionInputs,
  llmNrmCorrectionsFromSums,
  llmNrmCurvatureFromSums,
  llmNrmRowBlocksFromSums,
  type LlmNrmCorrectionInputs,
  type LlmNrmCurvatureSums,
} from './families/llmNrm/curvature.js';
export { engineNames, getEngine } from './engines.js';
export { minimizeLbfgs } from './fit/lbfgs.js';
export { serialVectorOps, runParts, sumParts, vectorPart, vectorRange, VECTOR_OP, VECTOR_PARTS, type VectorOpCode, type VectorOps } from './fit/vectorOps.js';
export { standardizeTheta, standardized } from './fit/identification.js';
export { TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './fit/twinBias.js';
export { inverseFirstDiagonal, inverseSpd } from './fit/standardErrors.js';
export { cholesky, cholSolve } from './internal/cholesky.js';
export { initialParameters, modelObjective } from './fit/modelObjective.js';
export { freeMask, llmParamIndices } from './families/registry.js';
export { minimiseTheta, minimiseThetaSharpness } from './scoreThetaAlone.js';
export { gridGoldenMinimum } from './internal/gridGoldenMinimum.js';
export { llmCrossEntropy } from './scoreThetaAlone.js';
export { blockPreconditioner, type BlockPreconditioner } from './curvature.js';
export type { BlockApplier, PackedSizes } from './internal/blocks.js';
