import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { connectMcpHttp, startMcpHttpWithSettings, writeSkill } from './helpers/mcp-http.js';
import { makeToken } from './helpers/serve.js';

// `birdie mcp --http` serves strangers. A skill the operator keeps from them (`skills.disable`, or one that must be
// named in `serve.skills` and is not) is no tool of this server for them: calling one of its tools by its exact name
// must be answered as a name that exists nowhere, or a caller could probe which skills the operator has installed;
// nor is a caller told why a skill of the server's folders did not load (that names the operator's files).

let box: Sandbox;
let url: string;
let stop: () => void;

const toolSkill = (name: string, tool: string, entrypoint: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\nenabled_by_default: true\n---\n\n## Tools\n\n### ${tool}\n` +
  `description: Runs ${tool}.\nentrypoint: ${entrypoint}\nschema: { type: object, properties: { command: { type: string } } }\n`;

beforeAll(async () => {
  box = await sandbox();
  const skills = join(box.dir.path, 'skills');
  const skill = (name: string, text: string) => writeSkill(skills, name, text);
  await skill('probe', toolSkill('probe', 'here', 'bash:pwd'));
  // Kept from API users by the operator's skills.disable.
  await skill('vault', toolSkill('vault', 'vault_open', 'bash:echo opened'));
  // Runs raw commands, so API users get it only if the operator names it in serve.skills, which this one does not.
  await skill('rawsh', toolSkill('rawsh', 'rawsh_run', 'bash:{command}'));
  // Refused at load (an entrypoint kind that does not exist): why is the operator's to read, with the file's path.
  await skill('broken', toolSkill('broken', 'broken_tool', 'telnet:somewhere'));
  ({ url, stop } = await startMcpHttpWithSettings(box, skills, { skills: { disable: ['vault'] } }));
}, 120_000);

afterAll(async () => {
  stop?.();
  await box?.cleanup();
});

/** What a call of `name` ends in: the protocol error's code and message, or the tool result's text. */
async function outcome(c: Client, name: string): Promise<{ code?: number; message: string }> {
  try {
    const result = await c.callTool({ name, arguments: {} });
    return { message: (result.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('') };
  } catch (error) {
    const e = error as { code?: number; message: string };
    return { code: e.code, message: e.message };
  }
}

describe('birdie mcp --http: a tool of a skill the operator keeps from API users', {
  timeout: 180_000,
}, () => {
  it('is answered exactly as a name that exists nowhere, and is neither listed nor suggested', async () => {
    const token = await makeToken('erin', { env: box.env, cwd: box.cwd });
    const c = await connectMcpHttp(url, token);
    try {
      const listed = (await c.listTools()).tools.map((t) => t.name);
      expect(listed).toContain('here');
      expect(listed).not.toContain('vault_open');
      expect(listed).not.toContain('rawsh_run');
      const nowhere = await outcome(c, 'zzqx_missing');
      expect(nowhere.code).toBe(-32602);
      for (const hidden of ['vault_open', 'rawsh_run', 'broken_tool']) {
        const got = await outcome(c, hidden);
        // The same protocol error, word for word but the name.
        expect(got, hidden).toEqual({
          code: nowhere.code,
          message: nowhere.message.replace('zzqx_missing', hidden),
        });
        expect(got.message).not.toMatch(/vault"|rawsh"|disabled|not allowed|refused|SKILL\.md/);
      }
    } finally {
      await c.close();
    }
  });
});
