import { registerEngine } from '@llm-nrm/core';
import { tfjsEngine, type TfjsEngineOptions } from './tfjsEngine.js';

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

// Importing the package registers 'tfjs' with core: `await loadEngine('tfjs')` (settings: TfjsEngineOptions).
registerEngine({
  name: 'tfjs',
  describe: 'TensorFlow.js (GPU with tfjs-node-gpu, else tfjs-node, else pure JS)',
  load: (o) => tfjsEngine((o.settings ?? {}) as TfjsEngineOptions),
});
