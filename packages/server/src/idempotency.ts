import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { ApiError } from './errors.js';

/** What a client sends in `Idempotency-Key`: 1-255 visible ASCII characters (a UUID, typically). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * What a request asked for, as a digest: the same key sent with another body is refused. The body is hashed as
 * JSON with its keys sorted, so the same object matches however a client orders its keys.
 */
export function requestDigest(body: Record<string, unknown>): string {
  return createHash('sha256').update(stringify(body)).digest('hex');
}

export function keyReusedError(key: string): ApiError {
  return new ApiError(
    'idempotency-key-reused',
    `Idempotency-Key ${JSON.stringify(key)} was used on this session for another request; use a new key for a new turn`,
  );
}
