import { relative } from 'node:path';

/** The fields of a vfile `VFileMessage` the runtime and its front ends read. */
export interface DiagnosticLike {
  file?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
  reason: string;
  ruleId?: string | undefined;
  source?: string | undefined;
  fatal?: boolean | null | undefined;
}

/** `path` relative to `cwd` when it is inside it, else as it is. */
export function relativeIfInside(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}
