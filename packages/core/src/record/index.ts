// The record check and the error class alone, as `@llm-nrm/core/record`: what a thread that only
// parses records needs (adapters' JSON Lines reader threads), without loading the rest of core
// (about 0.45 s at a worker's start, the JSON schema compiler among it). The same modules as the
// main entry's, so an error made here is an `LlmNrmError` there.
export { LlmNrmError, type LlmNrmErrorCode } from '../errors.js';
export { MAX_OPTIONS, describeValue, parseResponseRecord, type ParseRecordOptions } from './parseResponseRecord.js';
// Record-level checks a streaming reader runs as records go by (adapters' readAnyBank).
export { duplicateRowCounter } from './duplicateRows.js';
export { contentHash, singleContentCheck } from './resolveItemVersions.js';
