import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * Hono's `bodyLimit`, without its first step on the requests that do not need it. Hono asks `c.req.raw.body` before
 * anything, which on @hono/node-server turns the request into a full WHATWG `Request` (headers copied, the body
 * wrapped in a web stream): every later read of the body then goes through that stream instead of straight from
 * the socket. The answers are Hono's: a GET or HEAD has no body (its `Request` has none), a body with a
 * `Content-Length` and no `Transfer-Encoding` is judged by that length, anything else is counted by Hono as it
 * arrives.
 */
export function requestBodyLimit(options: {
  maxSize: number;
  onError(c: Context): Response | Promise<Response>;
}): MiddlewareHandler {
  const counted = bodyLimit(options);
  return async (c, next) => {
    const { method } = c.req;
    if (method === 'GET' || method === 'HEAD') return next();
    const headers = c.req.raw.headers;
    const length = headers.get('content-length');
    if (length !== null && !headers.has('transfer-encoding'))
      return Number.parseInt(length || '0', 10) > options.maxSize ? options.onError(c) : next();
    return counted(c, next);
  };
}
