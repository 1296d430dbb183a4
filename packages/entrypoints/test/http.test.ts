import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntrypointError, resolveEntrypoint } from '../src/index.js';
import { startServer, type TestServer } from './http-server.js';

let api: TestServer;
let evil: TestServer;
const skillDir = '/nonexistent-skill';

beforeAll(async () => {
  evil = await startServer((_req, res) => res.end('evil'));
  api = await startServer((req, res, seen, count) => {
    const path = seen.url.split('?')[0]!;
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    if (path === '/flaky-503' && count === 1) return json(503, { error: 'busy' }, { 'retry-after': '0' });
    if (path === '/flaky-429' && count === 1)
      return json(429, { error: 'slow down' }, { 'retry-after': '1' });
    if (path === '/limit-forever')
      return json(429, { error: 'come back tomorrow' }, { 'retry-after': '3600' });
    if (path === '/always-500') return json(500, { error: 'broken' });
    if (path === '/flaky-reset' && count === 1) return req.socket.destroy();
    if (path === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end(`no such thing\n${'detail '.repeat(500)}`);
    }
    if (path === '/slow') return; // never answers
    if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000000' });
      return res.end('b'.repeat(1_000_000));
    }
    if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('plain {"not": "reformatted"}');
    }
    if (path === '/same-origin-redirect') {
      res.writeHead(302, { location: '/echo/after-redirect' });
      return res.end();
    }
    if (path === '/cross-origin-redirect') {
      res.writeHead(302, { location: `${evil.origin}/steal` });
      return res.end();
    }
    json(200, { method: seen.method, url: seen.url, body: seen.body ? JSON.parse(seen.body) : null });
  });
});

afterAll(async () => {
  await api.close();
  await evil.close();
});

async function failure(promise: Promise<unknown>): Promise<EntrypointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  return error as EntrypointError;
}

const requestsTo = (path: string) => api.seen.filter((r) => r.url.split('?')[0] === path).length;

describe('http: URLs', () => {
  it('percent-encodes placeholders, sends other args as the query, and pretty-prints JSON', async () => {
    const ep = resolveEntrypoint(`http:get ${api.origin}/echo/{id}?fixed=1&q={q}`, { skillDir });
    expect(ep.scheme).toBe('http');
    expect(ep.placeholders).toEqual(['id', 'q']);
    const result = await ep.run({ id: 'a b/c', q: 'x&y=z', limit: 5, tags: ['p', 'q'] });
    expect(result.truncated).toBe(false);
    const body = JSON.parse(result.output);
    expect(body.url).toBe('/echo/a%20b%2Fc?fixed=1&q=x%26y%3Dz&limit=5&tags=%5B%22p%22%2C%22q%22%5D');
    expect(result.output).toContain('\n  "method": "GET"');
  });

  it('uses schema defaults for missing arguments', async () => {
    const schema = { properties: { id: { default: 'fallback' }, max_results: { default: 3 } } };
    const result = await resolveEntrypoint(`http:get ${api.origin}/echo/{id}`, { skillDir, schema }).run({});
    expect(JSON.parse(result.output).url).toBe('/echo/fallback?max_results=3');
  });

  const hostile = [
    '@evil.example',
    `@127.0.0.1:${'9'.repeat(4)}`,
    '//evil.example/x',
    'http://evil.example/',
    '%2f..%2f..%2fadmin',
    '%2e%2e',
    '..%2f',
    '\r\nHost: evil.example\r\n\r\n',
    '?admin=true',
    '#fragment',
    '\\\\evil.example',
    ':8080',
    '../../../etc/passwd',
    '\u0000nul',
    '\u2025\u3002evil',
    'ａｂｃ／．．',
  ];

  it.each(hostile)('keeps the origin fixed for %j', async (value) => {
    const before = api.seen.length;
    const ep = resolveEntrypoint(`http:get ${api.origin}/echo/{id}?q={id}`, { skillDir });
    const result = await ep.run({ id: value, extra: value });
    expect(api.seen.length).toBe(before + 1);
    const seen = api.seen.at(-1)!;
    expect(seen.host).toBe(api.origin.slice('http://'.length));
    const url = new URL(seen.url, api.origin);
    expect(decodeURIComponent(url.pathname)).toBe(`/echo/${value}`);
    expect(url.searchParams.get('q')).toBe(value);
    expect(url.searchParams.get('extra')).toBe(value);
    expect(JSON.parse(result.output).url).toBe(seen.url);
    expect(evil.seen).toEqual([]);
  });

  it.each(['..', '.', '%2e%2e'])('refuses a value that would form the path segment %j', async (value) => {
    const ep = resolveEntrypoint(`http:get ${api.origin}/echo/{id}/x`, { skillDir });
    if (value === '%2e%2e') {
      // encoded once more, it is a harmless literal segment
      const result = await ep.run({ id: value });
      expect(JSON.parse(result.output).url).toBe('/echo/%252e%252e/x');
      return;
    }
    expect((await failure(ep.run({ id: value }))).code).toBe('bad-argument');
  });

  it.each([
    'http:get http://{host}/x',
    'http:get http://127.0.0.1:{port}/x',
    'http:get {url}',
    'http:get http://127.0.0.1{path}',
    'http:get ftp://127.0.0.1/{x}',
    'http:get /relative/{x}',
  ])('refuses a template whose origin is not literal: %s', (template) => {
    expect(() => resolveEntrypoint(template, { skillDir })).toThrow(
      expect.objectContaining({ code: 'bad-template' }),
    );
  });

  it.each(['http:put http://127.0.0.1/x', 'http:get', 'http:get a b'])('refuses %j', (template) => {
    expect(() => resolveEntrypoint(template, { skillDir })).toThrow(
      expect.objectContaining({ code: 'bad-entrypoint' }),
    );
  });
});

describe('http: requests', () => {
  it('POSTs the remaining args as a JSON body', async () => {
    const ep = resolveEntrypoint(`http:post ${api.origin}/echo/{kind}`, { skillDir });
    const result = await ep.run({ kind: 'note', text: 'hi "there"', n: 2, nested: { a: [1] } });
    const body = JSON.parse(result.output);
    expect(body).toEqual({
      method: 'POST',
      url: '/echo/note',
      body: { text: 'hi "there"', n: 2, nested: { a: [1] } },
    });
    expect(api.seen.at(-1)!.headers['content-type']).toBe('application/json');
  });

  it('returns non-JSON bodies unchanged', async () => {
    const result = await resolveEntrypoint(`http:get ${api.origin}/text`, { skillDir }).run({});
    expect(result.output).toBe('plain {"not": "reformatted"}');
  });

  it('fails with http-status, the status and the start of the body', async () => {
    const error = await failure(resolveEntrypoint(`http:get ${api.origin}/missing`, { skillDir }).run({}));
    expect(error.code).toBe('http-status');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/missing answered 404 Not Found\nno such thing/,
    );
    expect(error.message.length).toBeLessThan(1_200);
    expect(requestsTo('/missing')).toBe(1);
  });

  // Reported: with a 100 KB path value the URL filled the whole message, and the output cap cut away "answered 404".
  it('a long URL is shortened in its messages, so the status stays in them', async () => {
    const id = 'A'.repeat(100_000);
    const error = await failure(
      resolveEntrypoint(`http:get ${api.origin}/missing/{id}`, {
        skillDir,
        schema: { type: 'object', properties: { id: { type: 'string' } } },
      }).run({ id }),
    );
    expect(error.code).toBe('http-status');
    expect(error.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/missing\/A+…\[\d+ more characters\]…A+ answered \d{3} /,
    );
    expect(error.message.length).toBeLessThan(1_200);
  });

  it('retries a GET once after a 503, honouring Retry-After', async () => {
    const result = await resolveEntrypoint(`http:get ${api.origin}/flaky-503`, { skillDir }).run({});
    expect(JSON.parse(result.output).method).toBe('GET');
    expect(requestsTo('/flaky-503')).toBe(2);
  });

  it('retries a GET after a 429 with Retry-After: 1', async () => {
    await resolveEntrypoint(`http:get ${api.origin}/flaky-429`, { skillDir }).run({});
    expect(requestsTo('/flaky-429')).toBe(2);
  });

  it('retries a GET once after a dropped connection', async () => {
    const result = await resolveEntrypoint(`http:get ${api.origin}/flaky-reset`, { skillDir }).run({});
    expect(JSON.parse(result.output).url).toBe('/flaky-reset');
    expect(requestsTo('/flaky-reset')).toBe(2);
  });

  it('gives up after one retry, and does not wait for a Retry-After beyond the bound', async () => {
    expect(
      (await failure(resolveEntrypoint(`http:get ${api.origin}/always-500`, { skillDir }).run({}))).status,
    ).toBe(500);
    expect(requestsTo('/always-500')).toBe(2);
    const error = await failure(
      resolveEntrypoint(`http:get ${api.origin}/limit-forever`, { skillDir }).run({}),
    );
    expect(error.status).toBe(429);
    expect(requestsTo('/limit-forever')).toBe(1);
  });

  it('never retries a POST unless retries says so', async () => {
    const ep = resolveEntrypoint(`http:post ${api.origin}/always-500`, { skillDir });
    const before = requestsTo('/always-500');
    await failure(ep.run({}));
    expect(requestsTo('/always-500')).toBe(before + 1);
    await failure(ep.run({}, { retries: 2 }));
    expect(requestsTo('/always-500')).toBe(before + 4);
  });

  it('fails with network when nothing listens', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const error = await failure(resolveEntrypoint(`http:get ${closed.origin}/x`, { skillDir }).run({}));
    expect(error.code).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('times out a server that never answers', async () => {
    const error = await failure(
      resolveEntrypoint(`http:get ${api.origin}/slow`, { skillDir }).run({}, { timeoutMs: 300 }),
    );
    expect(error.code).toBe('timeout');
  });

  it('aborts mid-request', async () => {
    const controller = new AbortController();
    const run = resolveEntrypoint(`http:get ${api.origin}/slow`, { skillDir }).run(
      {},
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    expect((await failure(run)).code).toBe('aborted');
  });

  it('caps a large response without reading all of it', async () => {
    const result = await resolveEntrypoint(`http:get ${api.origin}/big`, { skillDir }).run(
      {},
      { maxOutputBytes: 5_000 },
    );
    expect(result.truncated).toBe(true);
    expect(result.output).toBe(`${'b'.repeat(5_000)}\n[… response truncated after 5000 of 1000000 bytes …]`);
  });

  it('follows a same-origin redirect and refuses a cross-origin one', async () => {
    const ok = await resolveEntrypoint(`http:get ${api.origin}/same-origin-redirect`, { skillDir }).run({});
    expect(JSON.parse(ok.output).url).toBe('/echo/after-redirect');
    const error = await failure(
      resolveEntrypoint(`http:get ${api.origin}/cross-origin-redirect`, { skillDir }).run({}),
    );
    expect(error.code).toBe('cross-origin-redirect');
    expect(evil.seen).toEqual([]);
  });

  it('sends caller headers, never headers from arguments', async () => {
    const ep = resolveEntrypoint(`http:get ${api.origin}/echo/h`, { skillDir });
    await ep.run({ authorization: 'Bearer stolen' }, { headers: { 'x-api-key': 'from-caller' } });
    const seen = api.seen.at(-1)!;
    expect(seen.headers['x-api-key']).toBe('from-caller');
    expect(seen.headers.authorization).toBeUndefined();
  });
});
