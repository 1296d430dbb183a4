import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as entrypoints from '../src/index.js';
import { resolveEntrypoint } from '../src/index.js';
import { startServer, type TestServer } from './http-server.js';

let api: TestServer;
const skillDir = '/nonexistent-skill';

beforeAll(async () => {
  api = await startServer((_req, res, seen) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ url: seen.url, link: `http://user:hunter2@${seen.host}/next` }));
  });
});

afterAll(() => api.close());

describe('http: credentials never sit in a template and never reach a message (issue 12, defect 5)', () => {
  it.each([
    'http:get https://alice:s3cret@api.example.com/items/{id}',
    'http:get https://alice@api.example.com/items/{id}',
    'http:post  http://token:x-oauth@127.0.0.1:8080/hook',
  ])('refuses %j at resolve time, pointing at the userinfo', (entrypoint) => {
    let error: unknown;
    try {
      resolveEntrypoint(entrypoint, { skillDir });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'bad-template', offset: entrypoint.indexOf('://') + 3 });
    expect(String((error as Error).message)).not.toMatch(/s3cret|x-oauth/);
  });

  it('redacts userinfo and query values in one exported function', () => {
    const redactUrl = (entrypoints as { redactUrl?: (url: string) => string }).redactUrl;
    expect(typeof redactUrl).toBe('function');
    expect(redactUrl!('https://alice:s3cret@host.example/a/b?q=birds&key=abc123&flag#access_token=t')).toBe(
      'https://REDACTED@host.example/a/b?q=REDACTED&key=REDACTED&REDACTED#REDACTED',
    );
    expect(redactUrl!('https://host.example/items/{id}?key=abc&q={q}')).toBe(
      'https://host.example/items/{id}?key=REDACTED&q=REDACTED',
    );
    expect(redactUrl!('https://host.example/plain/path')).toBe('https://host.example/plain/path');
    expect(redactUrl!('not a url ?x=1')).toBe('not a url ?x=1');
  });

  it('keeps a literal query value of the template out of the tool result, and userinfo of any URL in it', async () => {
    const ep = resolveEntrypoint(`http:get ${api.origin}/echo?api_key=s3cret-value&q={q}`, { skillDir });
    const { output } = await ep.run({ q: 'birds' });
    expect(output).not.toContain('s3cret-value');
    expect(output).not.toContain('hunter2');
    expect(output).toContain('api_key=REDACTED');
    expect(output).toContain('q=birds');
  });

  it('names the URL in network errors without its query values', async () => {
    const ep = resolveEntrypoint('http:get http://127.0.0.1:9/x?api_key=s3cret-value&q={q}', { skillDir });
    const error = await ep.run({ q: 'birds' }, { retries: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network' });
    expect(String((error as Error).message)).toContain('http://127.0.0.1:9/x?api_key=REDACTED&q=REDACTED');
    expect(String((error as Error).message)).not.toContain('s3cret');
  });
});
