// What the `birdie mcp --http` suites set up alike: a folder of skills, a config file of settings, the server over
// both, and an SDK client signed in with a user's token.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Sandbox } from './env.js';
import { startMcpHttp } from './serve.js';

/** Writes `text` as `<skills>/<name>/SKILL.md`. */
export async function writeSkill(skills: string, name: string, text: string): Promise<void> {
  await mkdir(join(skills, name), { recursive: true });
  await writeFile(join(skills, name, 'SKILL.md'), text);
}

/**
 * Writes `settings` as the sandbox's `config.json` and starts `birdie mcp --http` over the skills of `skills` with
 * that config (`startMcpHttp`, in the sandbox's environment and folder).
 */
export async function startMcpHttpWithSettings(
  box: Sandbox,
  skills: string,
  settings: Record<string, unknown>,
): ReturnType<typeof startMcpHttp> {
  const config = join(box.dir.path, 'config.json');
  await writeFile(config, JSON.stringify({ settings }));
  return startMcpHttp(['--skills-dir', skills, '--config', config], { env: box.env, cwd: box.cwd });
}

/** An MCP SDK client connected to `url` with `token` as its bearer token; the caller closes it. */
export async function connectMcpHttp(url: string, token: string): Promise<Client> {
  const c = new Client({ name: 'sdk-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}
