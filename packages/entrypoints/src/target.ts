import type { CodeTakingWarning } from './code-taking-commands.js';
import type { EntrypointErrorCode } from './errors.js';
import type { Entrypoint } from './types.js';

/** A problem found in an entrypoint string, before anything runs. */
export interface EntrypointProblem {
  code: EntrypointErrorCode;
  message: string;
  /** 0-based offset into the whole entrypoint string, when known. */
  offset?: number;
}

/**
 * What a built-in scheme finds in its target (offsets relative to the target): every problem, every placeholder,
 * and, when there is no problem, how to build the entrypoint without analysing it again.
 */
export interface TargetAnalysis {
  problems: EntrypointProblem[];
  placeholders: { name: string; offset: number }[];
  /** What loads but deserves a warning: `bash:` commands that can run a value as code. */
  warnings?: CodeTakingWarning[];
  build?: () => Entrypoint;
}
