export { writeFileAtomic, writeStreamAtomic } from './atomic.js';
export { newReport, type FormatName, type OptionScoring, type ReadIssue, type ReadOptions, type ReadReport, type Reader } from './reader.js';
