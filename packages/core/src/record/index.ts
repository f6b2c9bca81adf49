// The record check and the error class alone, as `@llm-nrm/core/record`, for threads that only parse
// records (without loading the rest of core); the same modules, so its errors are `LlmNrmError`s.
export { LlmNrmError, type LlmNrmErrorCode } from '../errors.js';
export { MAX_OPTIONS, describeValue, parseResponseRecord, type ParseRecordOptions } from './parseResponseRecord.js';
// Record-level checks and counts a streaming reader runs as records go by (adapters' readAnyInto).
export { duplicateRowCounter } from './duplicateRows.js';
export { contentHash, singleContentCheck } from './resolveItemVersions.js';
export { IdNumbers } from './idNumbers.js';
// The calibrated LLMs' accuracies (`argmaxAccuracies`) counted on the stream (`llm-nrm publish`).
export { argmaxTally } from '../score/argmaxAccuracies.js';
