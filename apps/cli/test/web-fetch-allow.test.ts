import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

/** The repository's own skills: `web_fetch` as it ships. */
const REPO_SKILLS = fileURLToPath(new URL('../../../skills', import.meta.url));

let box: Sandbox;
let server: Server;
let url: string;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: REPO_SKILLS });
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<html><head><title>Intranet</title></head><body><h1>Team notes</h1><p>The build is green.</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

describe('web_fetch_allow: the setting that lets web_fetch reach a non-public network', () => {
  it('refuses a loopback page by default; `birdie config set web_fetch_allow` lets that network through, and only it', async () => {
    const args = ['tool', 'web_fetch', '--args', JSON.stringify({ url })];
    const refused = await cli(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('BIRDIE_WEB_FETCH_ALLOW');
    expect(refused.stdout).not.toContain('The build is green');

    expect((await cli(['config', 'set', 'web_fetch_allow', 'not-a-network'])).code).toBe(2);
    expect((await cli(['config', 'set', 'web_fetch_allow', '10.0.0.0/8'])).code).toBe(0);
    expect((await cli(args)).code).toBe(1); // another network: still refused

    expect((await cli(['config', 'set', 'web_fetch_allow', '127.0.0.1/32'])).code).toBe(0);
    const allowed = await cli(args);
    expect(allowed.stderr).not.toContain('BIRDIE_WEB_FETCH_ALLOW');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('The build is green');
    expect((await cli(['config', 'get', 'web_fetch_allow'])).stdout).toContain('127.0.0.1/32');
  });
});
