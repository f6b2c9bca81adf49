export { loadTfjs, type LoadTfjsOptions, type LoadedTfjs, type Tf, type TfjsBackendName } from './loadTfjs.js';
export {
  createTfjsObjective,
  tfjsBinaryObjective,
  tfjsFamilyObjective,
  tfjsLlmNrmObjective,
  tfjsObjective,
  type CreateTfjsObjectiveOptions,
  type CreatedTfjsObjective,
  type GatherGradient,
  type TfjsObjective,
  type TfjsObjectiveOptions,
} from './tfjsObjective.js';
export { chunkedObjective, rowChunks, tfjsEngine, type TfjsEngine, type TfjsEngineOptions } from './tfjsEngine.js';
