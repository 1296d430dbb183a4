import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startMcpHttp } from './helpers/serve.js';

// `birdie mcp --http` admits each tool call against `serve.limits` as `birdie serve` admits a turn. A call refused
// for the user's workspace quota, after its admission, runs nothing: it must not use up one of the user's places in
// the minute (`turns_per_minute`), as a turn refused with 413 does not under `birdie serve`.

let box: Sandbox;
let url: string;
let stop: () => void;

beforeAll(async () => {
  box = await sandbox();
  const skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'probe'), { recursive: true });
  await writeFile(
    join(skills, 'probe', 'SKILL.md'),
    '---\nname: probe\ndescription: Probes.\nenabled_by_default: true\n---\n\n## Tools\n\n### here\ndescription: Print the working folder.\nentrypoint: bash:pwd\nschema: { type: object, properties: {} }\n',
  );
  const config = join(box.dir.path, 'config.json');
  await writeFile(
    config,
    JSON.stringify({ settings: { serve: { limits: { workspace_bytes: 16384, turns_per_minute: 2 } } } }),
  );
  ({ url, stop } = await startMcpHttp(['--skills-dir', skills, '--config', config], {
    env: box.env,
    cwd: box.cwd,
  }));
}, 120_000);

afterAll(async () => {
  stop?.();
  await box?.cleanup();
});

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('birdie mcp --http: a call refused for the workspace quota', { timeout: 180_000 }, () => {
  it('takes no place in the minute: after three refusals, two calls still run', async () => {
    const token = await makeToken('dave', { env: box.env, cwd: box.cwd });
    const workspace = join(box.home, 'workspaces', 'dave');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'big.bin'), Buffer.alloc(64 * 1024));
    const c = new Client({ name: 'sdk-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      for (let i = 0; i < 3; i++) {
        const refused = await c.callTool({ name: 'here', arguments: {} });
        expect(refused.isError, `call ${i}`).toBe(true);
        expect(textOf(refused)).toContain('serve.limits.workspace_bytes');
      }
      await rm(join(workspace, 'big.bin'));
      for (let i = 0; i < 2; i++) {
        const ran = await c.callTool({ name: 'here', arguments: {} });
        expect(textOf(ran), `call ${i}`).toBe(`${workspace}\n`);
      }
      // The limit itself still holds: a third call in the minute is refused.
      await expect(c.callTool({ name: 'here', arguments: {} })).rejects.toThrow(/turns per minute limit/);
    } finally {
      await c.close();
    }
  });
});
