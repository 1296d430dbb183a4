import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, MiddlewareHandler } from 'hono';

/**
 * The web app's Content-Security-Policy: everything from this origin only, no inline script or style, no plugins,
 * no `<base>`, never framed. Model and tool output is untrusted: were it ever to reach the page as HTML, it could
 * neither run a script nor load (and so leak through) anything from elsewhere. `data:` images only, for icons the
 * build inlines.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The built app shipped in this package (`dist/web`, next to this module once built). */
export function defaultWebRoot(): string {
  return fileURLToPath(new URL('./web', import.meta.url));
}

/**
 * Paths the web app never answers: the API's and the metrics', also as a script may mistype them (`//v1/health` from a
 * base URL ending in `/`, `/V1/…`), so that such a request gets the API's JSON 404, not the page with a 200.
 */
const isApiPath = (path: string) => {
  const plain = path.replace(/\/{2,}/g, '/').toLowerCase();
  return plain === '/v1' || plain.startsWith('/v1/') || plain === '/metrics';
};

/** A file a build names by its content (`assets/index-B3xK9a_1.js`): its bytes never change under that name. */
const HASHED = /\/assets\/[^/]*[.-][A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$/;

/** A path naming a file (`/x/app.js`) rather than a route of the app (`/sessions/abc`): not answered with the page. */
const looksLikeFile = (path: string) => /\.[A-Za-z0-9]+$/.test(path.slice(path.lastIndexOf('/') + 1));

function securityHeaders(c: Context): void {
  c.header('Content-Security-Policy', WEB_APP_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cross-Origin-Opener-Policy', 'same-origin');
  c.header('X-Frame-Options', 'DENY');
}

/**
 * The single-page app at `/`: GET and HEAD of paths outside the API, from the files of `root` (the build's output,
 * `index.html` at its top). A path that is not a file and does not look like one gets `index.html` (the app routes it);
 * a missing file is a 404. Files found by name are the only ones served: `..`, `//`, backslashes and encoded
 * separators are refused by `serveStatic` before any path is joined. Without `index.html` in `root`, every such path
 * answers a 404 saying the app was not built; the API is unaffected.
 */
export function webApp(root: string): MiddlewareHandler {
  // Made once the folder has the app: serveStatic prints when its root does not exist, and a library never prints.
  let serve: { files: MiddlewareHandler; page: MiddlewareHandler } | undefined;
  const none = async () => {};
  return async (c, next) => {
    if ((c.req.method !== 'GET' && c.req.method !== 'HEAD') || isApiPath(c.req.path)) return next();
    securityHeaders(c);
    // Checked per request: an app built while the server runs is served from then on.
    if (!existsSync(join(root, 'index.html')))
      return c.text(
        'The birdie web app was not built, so this server has none: build @birdie/server with its web app (pnpm build). The API is under /v1 (see /v1/openapi.json).\n',
        404,
      );
    serve ??= servers(root);
    const found = await serve.files(c, none);
    if (found) return found;
    if (!looksLikeFile(c.req.path)) {
      const shown = await serve.page(c, none);
      if (shown) return shown;
    }
    return c.text('Not found.\n', 404);
  };
}

/** The folder's files by name (hashed assets cached for good), and its `index.html` for the app's routes. */
function servers(root: string) {
  return {
    files: serveStatic({
      root,
      onFound: (path, c) => {
        c.header('Cache-Control', HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
    page: serveStatic({
      root,
      path: 'index.html',
      onFound: (_path, c) => {
        c.header('Cache-Control', 'no-cache');
      },
    }),
  };
}
