import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore, type Store } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../src/index.js';
import { FakeRuntime } from './helpers.js';

// `birdie serve` serves the built single-page app at `/`, the API stays under /v1. Real HTTP to a listening server;
// the raw paths (`..`, encoded dots) are sent as written, not normalised by a URL parser.

let dir: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
const servers: Array<ReturnType<typeof createServer>> = [];

/** A server on a real port with this web root; `get(path)` sends the path byte for byte. */
async function serve(webRoot: string | false) {
  const server = createServer({ runtime: new FakeRuntime(store), webRoot, rateLimit: false });
  servers.push(server);
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    get: (path: string, init: RequestInit = {}) => rawGet(url, path, init),
  };
}

/** `fetch` normalises `/../`; this sends the request line as given, through node's http client. */
async function rawGet(url: string, path: string, init: RequestInit = {}) {
  const { request } = await import('node:http');
  const { hostname, port } = new URL(url);
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  }>((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string>,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-B3xK9a_1.js"></script></head><body>app</body></html>';

beforeAll(async () => {
  dir = await makeTempDir('birdie-web-');
  store = openStore({ home: join(dir.path, 'home') });
  const web = join(dir.path, 'web');
  await mkdir(join(web, 'assets'), { recursive: true });
  await writeFile(join(web, 'index.html'), INDEX);
  await writeFile(join(web, 'assets', 'index-B3xK9a_1.js'), 'console.log("app")');
  await writeFile(join(web, 'assets', 'app.css'), 'body{}');
  await writeFile(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // Next to the web root: what a traversal would reach.
  await writeFile(join(dir.path, 'secret.txt'), 'TOP SECRET');
});

afterAll(async () => {
  for (const server of servers) await server.close({ graceMs: 0 });
  await store?.close();
  await dir?.cleanup();
});

describe('the web app at /', () => {
  it('serves index.html at / and for app routes, with the CSP, nosniff and no caching', async () => {
    const { get } = await serve(join(dir.path, 'web'));
    for (const path of ['/', '/sessions', '/sessions/alice~2026-11-29_1', '/runs/12?tab=tools']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.body).toBe(INDEX);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('serves files with their content types; hashed assets are cached for good, others revalidated', async () => {
    const { get } = await serve(join(dir.path, 'web'));
    const js = await get('/assets/index-B3xK9a_1.js');
    expect(js.status).toBe(200);
    expect(js.body).toBe('console.log("app")');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await get('/assets/app.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('no-cache');
    expect((await get('/favicon.svg')).headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    // A missing file is a 404, not the page (a script tag never gets HTML).
    const missing = await get('/assets/gone-AAAAAAAA.js');
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('<html');
    // HEAD answers the headers alone.
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('never serves a file outside its folder, whatever the path says', async () => {
    const { get } = await serve(join(dir.path, 'web'));
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E%2Fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets/..\\..\\secret.txt',
      '//secret.txt',
      '/%00/secret.txt',
    ]) {
      const response = await get(path);
      expect(response.body, path).not.toContain('TOP SECRET');
      expect([200, 400, 404], path).toContain(response.status);
      if (response.status === 200) expect(response.body, path).toBe(INDEX);
    }
  });

  it('leaves the API alone: /v1 paths are JSON, with or without the app, and other methods are not the app’s', async () => {
    const { get } = await serve(join(dir.path, 'web'));
    // An unknown API path is the API's (a token first), never the page.
    const missing = await get('/v1/nothing-here');
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await get('/v1')).body).not.toBe(INDEX);
    expect((await get('/v1/sessions')).status).toBe(401);
    expect((await get('/v1/health')).status).toBe(200);
    const posted = await get('/', { method: 'POST' });
    expect(posted.status).toBe(404);
    expect(JSON.parse(posted.body)).toMatchObject({ error: { code: 'not-found' } });
  });

  it('answers an API path written with a doubled slash or another case as the API’s 404, never with the page', async () => {
    const { get } = await serve(join(dir.path, 'web'));
    // A script whose base URL ends in `/` asks for `//v1/health`: HTML with 200 would read as a broken server.
    for (const path of ['//v1/health', '/V1/health', '//v1', '///metrics', '/Metrics']) {
      const answer = await get(path);
      expect(answer.body, path).not.toBe(INDEX);
      expect(answer.status, path).toBe(404);
      const body = JSON.parse(answer.body);
      expect(body, path).toMatchObject({ error: { code: 'not-found' } });
      expect(body.error.message, path).toContain('no such endpoint');
    }
    const doubled = JSON.parse((await get('//v1/health')).body);
    expect(doubled.error.message).toContain('/v1/health');
    // The app's own routes still get the page.
    expect((await get('/sessions/abc')).body).toBe(INDEX);
  });

  it('without a built app, / says so in a 404; the API still works; nothing is printed', async () => {
    const printed = vi.spyOn(console, 'error');
    for (const root of [join(dir.path, 'not-built'), false] as const) {
      const { get } = await serve(root);
      const page = await get('/');
      expect(page.status).toBe(404);
      if (root !== false) {
        expect(page.body).toContain('web app was not built');
        expect(page.headers['content-type']).toBe('text/plain; charset=UTF-8');
      }
      expect((await get('/v1/health')).status).toBe(200);
    }
    // A library never prints (serveStatic itself would, for a folder that does not exist).
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
  });
});
