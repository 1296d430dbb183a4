import { createHash } from 'node:crypto';
import { stableStringify } from './ids.js';

/** SHA-256 (hex) of a call: the tool's name and its arguments with keys sorted, so key order never matters. */
export function argsDigest(name: string, args: unknown): string {
  return createHash('sha256')
    .update(name)
    .update('\0')
    .update(stableStringify(args ?? {}))
    .digest('hex');
}
