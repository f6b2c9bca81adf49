/**
 * The one error class of llm-nrm. `code` is a closed union so callers can branch on it; messages
 * name the file, line and offending value where there is one (`invalid option count: 1`).
 */
export type LlmNrmErrorCode =
  | 'INVALID_RECORD' // a response record is malformed (missing field, wrong type)
  | 'INVALID_PROBS' // probabilities negative, NaN, or not summing to a positive number
  | 'INVALID_KEY' // key out of range
  | 'NO_KEY' // a keyed model or output asked of a bank whose items have no key (key-free fitting)
  | 'INVALID_OPTIONS' // option count below 2, above the limit, or inconsistent for one item
  | 'DUPLICATE' // the same id twice where ids must be unique
  | 'EMPTY' // an LLM or item with no observed cells, or no data at all
  | 'NON_FINITE' // the objective or a parameter became NaN/Infinity during fitting
  | 'UNCONVERGED' // a fit ended farther than 1 SE from its optimum (fitConvergence.ts)
  | 'INVALID_OPTION' // a function/CLI option has an invalid value
  | 'INVALID_BUNDLE' // a calibration bundle failed schema validation
  | 'UNKNOWN_ITEM' // responses refer to items that the bundle does not hold
  | 'CONTENT_CHANGED' // a response's prompt/continuations differ from the text its item was calibrated on
  | 'IO' // reading or writing a file failed
  | 'OUTPUT_REFUSED' // an output would overwrite an input or remove files llm-nrm did not write (nothing was changed)
  | 'FORMAT'; // a harness file could not be parsed or its format not recognised

export class LlmNrmError extends Error {
  readonly code: LlmNrmErrorCode;
  /** Where the problem was found, when known. */
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(code: LlmNrmErrorCode, message: string, options: { cause?: unknown; file?: string; line?: number } = {}) {
    const where =
      options.file !== undefined
        ? `${options.file}${options.line !== undefined ? `:${options.line}` : ''}: `
        : options.line !== undefined
          ? `line ${options.line}: `
          : '';
    // A message that already begins with its location (re-thrown with the same file and line)
    // is not prefixed again: `x.txt:6: x.txt:6: ...` said nothing twice.
    super(message.startsWith(where) ? message : where + message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'LlmNrmError';
    this.code = code;
    this.file = options.file;
    this.line = options.line;
  }
}

/** True when `e` is an LlmNrmError, optionally with the given code. */
export function isLlmNrmError(e: unknown, code?: LlmNrmErrorCode): e is LlmNrmError {
  return e instanceof LlmNrmError && (code === undefined || e.code === code);
}
