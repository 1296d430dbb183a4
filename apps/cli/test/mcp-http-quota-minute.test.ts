import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { connectMcpHttp, startMcpHttpWithSettings, writeSkill } from './helpers/mcp-http.js';
import { makeToken } from './helpers/serve.js';

// `birdie mcp --http` admits each tool call against `serve.limits` as `birdie serve` admits a turn. A call refused
// for the user's workspace quota, after its admission, runs nothing: it must not use up one of the user's places in
// the minute (`turns_per_minute`), as a turn refused with 413 does not under `birdie serve`.

let box: Sandbox;
let url: string;
let stop: () => void;

beforeAll(async () => {
  box = await sandbox();
  const skills = join(box.dir.path, 'skills');
  await writeSkill(
    skills,
    'probe',
    '---\nname: probe\ndescription: Probes.\nenabled_by_default: true\n---\n\n## Tools\n\n### here\ndescription: Print the working folder.\nentrypoint: bash:pwd\nschema: { type: object, properties: {} }\n',
  );
  // A tool whose schema needs an argument, and a skill new sessions start without (within the operator's ceiling).
  await writeSkill(
    skills,
    'echoer',
    '---\nname: echoer\ndescription: Echoes.\nenabled_by_default: true\n---\n\n## Tools\n\n### echo_word\ndescription: Echo a word.\nentrypoint: bash:echo {word}\nschema: { type: object, properties: { word: { type: string } }, required: [word] }\n',
  );
  await writeSkill(
    skills,
    'shelved',
    '---\nname: shelved\ndescription: Off until enabled.\nenabled_by_default: false\n---\n\n## Tools\n\n### shelved_tool\ndescription: Runs.\nentrypoint: bash:echo shelved\nschema: { type: object, properties: {} }\n',
  );
  ({ url, stop } = await startMcpHttpWithSettings(box, skills, {
    serve: { limits: { workspace_bytes: 16384, turns_per_minute: 2 } },
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
    const c = await connectMcpHttp(url, token);
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

  it('neither does a call that never ran: an unknown name, a tool not enabled, arguments its schema refuses', async () => {
    const token = await makeToken('frank', { env: box.env, cwd: box.cwd });
    const c = await connectMcpHttp(url, token);
    try {
      await expect(c.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/);
      const off = await c.callTool({ name: 'shelved_tool', arguments: {} });
      expect(off.isError, textOf(off)).toBe(true);
      expect(textOf(off)).toContain('not available here');
      const bad = await c.callTool({ name: 'echo_word', arguments: { word: 7 } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).not.toContain('per minute');
      // None of the three ran, so the user's two places in the minute are both still free.
      for (let i = 0; i < 2; i++) {
        const ran = await c.callTool({ name: 'echo_word', arguments: { word: `w${i}` } });
        expect(textOf(ran), `call ${i}`).toBe(`w${i}\n`);
      }
      await expect(c.callTool({ name: 'echo_word', arguments: { word: 'x' } })).rejects.toThrow(
        /turns per minute limit/,
      );
    } finally {
      await c.close();
    }
  });
});
