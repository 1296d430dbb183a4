import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body as JSON: `undefined` when empty, else the parsed value. Strict on purpose: a body that is not
 * UTF-8 is refused instead of decoded with U+FFFD (which would reach the model and the store as something the
 * client never sent), and so is a lone surrogate written as a JSON escape (`"\ud800"`), which no store keeps.
 */
export function parseJsonBody(bytes: Uint8Array, contentType: string): unknown {
  if (bytes.length === 0) return undefined;
  if (!/^application\/json\b/i.test(contentType))
    throw new ApiError('unsupported-media-type', 'send the body as application/json');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw notUtf8();
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid-request', 'the body is not valid JSON');
  }
  checkStrings(value);
  return value;
}

const notUtf8 = () => new ApiError('invalid-encoding', 'the request body is not valid UTF-8');

/** No request of the API nests deeper; the code that reads a body (validation, comparing, storing) may recurse. */
export const MAX_BODY_DEPTH = 64;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Every string of the value (keys included) is well-formed UTF-16, so it encodes to UTF-8 unchanged, and the value
 * nests at most `MAX_BODY_DEPTH` levels. Iterative: a small body of thousands of nested arrays must not exhaust the
 * call stack (it was a 500).
 */
function checkStrings(value: unknown): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) throw notUtf8();
    } else if (item !== null && typeof item === 'object') {
      if (depth >= MAX_BODY_DEPTH)
        throw new ApiError(
          'invalid-request',
          `the body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
        );
      for (const [key, child] of Object.entries(item)) {
        if (!Array.isArray(item) && LONE_SURROGATE.test(key)) throw notUtf8();
        stack.push([child, depth + 1]);
      }
    }
  }
}

/**
 * Reads the body of every request that may carry one, once and strictly (`parseJsonBody`), before any route sees
 * it. The routes' validators read `c.req.json()`, which then answers this value (`{}` for an empty body).
 */
export function jsonBodies(): MiddlewareHandler {
  return async (c, next) => {
    if (!BODILESS.has(c.req.method)) {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const value = parseJsonBody(bytes, c.req.header('content-type') ?? '');
      c.req.bodyCache.json = Promise.resolve(value ?? {});
      // Hono's `c.req.json()` parses `c.req.text()`: with no text cached it would read the body again, through a
      // WHATWG Response made of the cached bytes. The text is the body's (valid UTF-8 by now), or `{}` when empty.
      // (Hono keeps promises there; its type says values.)
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(
        value === undefined ? '{}' : utf8.decode(bytes),
      );
    }
    await next();
  };
}

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);
