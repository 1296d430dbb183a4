import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isRuntimeError, UsageError } from '../src/errors.js';
import { mcpHttpNotes, mcpOptions } from '../src/mcp-options.js';
import { secondsFlag, wholeNumberFlag } from '../src/number-flags.js';
import { serveOptions } from '../src/serve-options.js';
import { listenOrFail } from '../src/serve-server.js';

describe('whole-number and seconds flags', () => {
  it('takes a whole number within its range, the fallback when absent, and names flag and range otherwise', () => {
    const range = { fallback: 8787, min: 0, max: 65535 };
    expect(wholeNumberFlag({}, 'port', range)).toBe(8787);
    expect(wholeNumberFlag({ port: '0' }, 'port', range)).toBe(0);
    for (const bad of ['65536', '-1', '1.5', 'x'])
      expect(() => wholeNumberFlag({ port: bad }, 'port', range)).toThrow(
        `--port must be a whole number from 0 to 65535, got "${bad}"`,
      );
    expect(() => wholeNumberFlag({ port: true }, 'port', range)).toThrow(UsageError);
    expect(() => wholeNumberFlag({ n: '0' }, 'n', { fallback: 20, min: 1, label: '-n' })).toThrow(
      '-n must be a whole number of 1 or more, got "0"',
    );
    expect(wholeNumberFlag({ n: '500000' }, 'n', { fallback: 20, min: 1 })).toBe(500000);
  });

  it('reads seconds as milliseconds, fractions included, and refuses negative or non-numbers', () => {
    expect(secondsFlag({}, 'grace', 30)).toBe(30_000);
    expect(secondsFlag({ grace: '0.5' }, 'grace', 30)).toBe(500);
    expect(() => secondsFlag({ grace: '-1' }, 'grace', 30)).toThrow(
      '--grace must be a number of seconds (0 or more), got "-1"',
    );
  });
});

describe("birdie serve's options", () => {
  it('has the defaults of `birdie serve --help`', () => {
    expect(serveOptions({})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      perMinute: 600,
      maxBodyBytes: 1024 * 1024,
      graceMs: 10_000,
      corsOrigins: [],
      logFormat: 'text',
    });
  });

  it('reads every flag, the metrics listener only with its port', () => {
    const options = serveOptions({
      host: '0.0.0.0',
      port: '0',
      'rate-limit': '0',
      'max-body': '2048',
      grace: '3',
      'cors-origin': ['https://app.example.com'],
      'metrics-port': '9090',
      'log-format': 'json',
    });
    expect(options).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      perMinute: 0,
      maxBodyBytes: 2048,
      graceMs: 3000,
    });
    expect(options.metrics).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(options.logFormat).toBe('json');
  });

  it('refuses what would not work, as usage errors', () => {
    expect(() => serveOptions({ 'max-body': '10' })).toThrow('--max-body must be a whole number from 1024');
    expect(() => serveOptions({ 'cors-origin': ['https://x.example/path'] })).toThrow(
      '--cors-origin must be an origin such as https://app.example.com, got "https://x.example/path"',
    );
    expect(() => serveOptions({ 'metrics-host': '0.0.0.0' })).toThrow('--metrics-host needs --metrics-port');
    expect(() => serveOptions({ 'log-format': 'yaml' })).toThrow(UsageError);
  });
});

describe("birdie mcp's options", () => {
  it('is stdio without --http, and refuses the HTTP flags there', () => {
    expect(mcpOptions({})).toEqual({});
    expect(() => mcpOptions({ host: '0.0.0.0' })).toThrow('--host needs --http');
    expect(() => mcpOptions({ 'rate-limit': '5' })).toThrow('--rate-limit needs --http');
  });

  it('serves HTTP on the port given, and leaves skills to the operator', () => {
    expect(mcpOptions({ http: '8788' })).toEqual({ http: { port: 8788, host: '127.0.0.1' } });
    expect(mcpOptions({ http: '0', host: '::1', 'rate-limit': '0' })).toEqual({
      http: { port: 0, host: '::1', perMinute: 0 },
    });
    expect(() => mcpOptions({ http: '70000' })).toThrow('--http must be a whole number from 0 to 65535');
    expect(() => mcpOptions({ http: '0', enable: ['shell'] })).toThrow(
      '--enable and --disable do not apply with --http',
    );
  });

  it("notes the approval mode, where users' tools run and the session limits", () => {
    const serve = {
      isolation: {
        workspaces: { root: '/srv/ws' },
        shellTools: ['run_bash'],
        sandboxVersion: 'bubblewrap 0.8.0',
      },
      sessions: { total: 100, perUser: 10, idleMs: 1_800_000 },
    };
    expect(mcpHttpNotes({ approval: 'ask', serve } as never)).toEqual([
      'approval ask; workspaces in /srv/ws; shell tools sandboxed (bubblewrap 0.8.0); tokens: birdie tokens create --user NAME',
      'up to 100 MCP sessions (10 per user), closed after 1800 s idle (serve.limits.mcp_*)',
    ]);
    expect(mcpHttpNotes({ approval: 'ask' } as never)).toEqual([]);
  });
});

describe('listenOrFail', () => {
  it('says which address could not be listened on, and why', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const again = createServer();
      const listen = () =>
        new Promise<void>((resolve, reject) => {
          again.once('error', reject);
          again.listen(port, '127.0.0.1', resolve);
        });
      const error = await listenOrFail(listen, '127.0.0.1', port).catch((e: unknown) => e);
      expect(isRuntimeError(error)).toBe(true);
      expect((error as Error).message).toBe(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
      expect((error as { exitCode: number }).exitCode).toBe(1);
    } finally {
      taken.close();
    }
  });
});
