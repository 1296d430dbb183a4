import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { makeToken, type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';

// Issue 27, defects 1 and 2: what an API session may use is the operator's to decide (the server's settings), and a
// request only narrows it. Each worker here is a real `birdie serve` over its own SQLite file.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
let open: { worker: Worker; token: string };
let strict: { worker: Worker; token: string };
let ruled: { worker: Worker; token: string };

/** A skill of the operator's own folder whose tool is a `node:` module: it would run inside the server. */
async function writeNodeSkill(dir: string): Promise<void> {
  await mkdir(join(dir, 'in-process'), { recursive: true });
  await writeFile(
    join(dir, 'in-process', 'SKILL.md'),
    '---\nname: in-process\ndescription: A node tool from a user folder.\nenabled_by_default: true\n---\n\n## Tools\n\n### whoami_node\ndescription: Says hello.\nentrypoint: node:tools.mjs#hello\nschema:\n  type: object\n  properties: {}\n',
  );
  await writeFile(join(dir, 'in-process', 'tools.mjs'), 'export async function hello() { return "hi"; }\n');
  // A skill that declares an MCP server: one process for every user of the server, outside the sandbox.
  await mkdir(join(dir, 'mcp-thing'), { recursive: true });
  await writeFile(
    join(dir, 'mcp-thing', 'SKILL.md'),
    '---\nname: mcp-thing\ndescription: An MCP server from a user folder.\nmcp_server:\n  transport: stdio\n  command: node\n  args: [server.mjs]\n---\n',
  );
}

async function writeAgents(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of ['helper', 'other'])
    await writeFile(
      join(dir, `${name}.md`),
      `---\nname: ${name}\ndescription: The ${name} agent.\n---\n\nYou help.\n`,
    );
}

/** A worker with its own BIRDIE_HOME (and SQLite file), configured by `birdie config set` lines first. */
async function start(name: string, settings: string[][]): Promise<{ worker: Worker; token: string }> {
  const home = join(box.dir.path, `home-${name}`);
  await mkdir(home, { recursive: true });
  const env = { ...box.env, BIRDIE_HOME: home };
  for (const [key, value, verb = 'set'] of settings) {
    const set = await birdie(['config', verb, key!, value!], { env, cwd: box.cwd });
    expect(set.code, set.stderr).toBe(0);
  }
  const script = join(box.dir.path, `${name}.json`);
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { match: 'list files', tool_calls: [{ name: 'run_command', args: { command: 'echo ran' } }] },
        { match: 'list files', text: 'Listed.' },
        { match: 'call node', tool_calls: [{ name: 'whoami_node', args: {} }] },
        { match: 'call node', text: 'Called.' },
        { match: 'say hi', tool_calls: [{ name: 'run_command', args: { command: 'echo hi' } }] },
        { match: 'say hi', text: 'Said.' },
        { match: 'switched off', tool_calls: [{ name: 'run_command', args: { command: 'echo off' } }] },
        { match: 'switched off', text: 'Tried.' },
        { match: 'edit this', tool_calls: [{ name: 'run_command', args: { command: 'echo asked' } }] },
        { match: 'edit this', text: 'Edited.' },
        { match: 'read outside', tool_calls: [{ name: 'read_file', args: { path: '/etc/hostname' } }] },
        { match: 'read outside', text: 'Refused.' },
      ],
    }),
  );
  const extra = join(box.dir.path, 'operator-skills');
  const agents = join(box.dir.path, 'operator-agents');
  const worker = await startWorker(
    ['--skills-dir', TEST_SKILLS, '--skills-dir', extra, '--agents-dir', agents, '--approval', 'never'],
    { env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script }, cwd: box.cwd, home },
  );
  return { worker, token: await makeToken('alice', { env, cwd: box.cwd }) };
}

beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  await writeNodeSkill(join(box.dir.path, 'operator-skills'));
  await writeAgents(join(box.dir.path, 'operator-agents'));
  // No serve settings: the default policy.
  open = await start('open', []);
  // The report's second case: the operator disabled `shell` (and, here, also named it in the allow list).
  strict = await start('strict', [
    ['skills.disable', 'shell'],
    ['serve.skills', '*,shell,raw-shell'],
    ['serve.agents', 'helper'],
  ]);
  // Issue 29: the operator's approval rules (the server's `permissions`) decide for every API session.
  ruled = await start('ruled', [
    ['serve.skills', '*,raw-shell'],
    ['permissions.allow', 'run_command(echo hi)', 'add'],
    ['permissions.deny', 'run_command(echo ran)', 'add'],
  ]);
}, 180_000);

afterAll(async () => {
  for (const w of [open, strict, ruled]) w?.worker.process.kill('SIGKILL');
  await box?.cleanup();
});

const create = (w: { worker: Worker; token: string }, body: unknown) =>
  w.worker.request('/v1/sessions', { token: w.token, json: body });
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string } }).error;

describe('operator policy for API sessions', { timeout: 120_000 }, () => {
  it('an ordinary token cannot enable shell: 403 skill-not-allowed, naming the setting', async () => {
    const response = await create(open, { enable: ['shell'] });
    expect(response.status).toBe(403);
    const error = await errorOf(response);
    expect(error.code).toBe('skill-not-allowed');
    expect(error.message).toContain('shell');
    expect(error.message).toContain('serve.skills');
  });

  it('a raw-command tool and a node: tool of a user folder need the operator to name their skill', async () => {
    for (const skill of ['raw-shell', 'in-process']) {
      const response = await create(open, { enable: [skill] });
      expect(response.status, skill).toBe(403);
      expect((await errorOf(response)).code).toBe('skill-not-allowed');
    }
    // First-party node: tools and ordinary skills stay available; an unknown name is still a 400.
    expect((await create(open, { enable: ['todo', 'filesystem', 'echoer'] })).status).toBe(201);
    expect((await create(open, { enable: ['no-such-skill'] })).status).toBe(400);
  });

  it('a filesystem refusal does not show the API user where the server keeps their workspace', async () => {
    const session = (await (await create(open, { enable: ['filesystem'] })).json()) as { id: string };
    const turn = await open.worker.request(`/v1/sessions/${session.id}/turns`, {
      token: open.token,
      json: { prompt: 'read outside' },
    });
    const ended = (await streamEvents(turn)).find((e) => e.type === 'tool-end');
    const output = String(ended?.output);
    expect(output).toContain('Refused "/etc/hostname": it is outside the working directory');
    // Neither the worker's BIRDIE_HOME nor the workspace root under it.
    expect(output).not.toContain(open.worker.home);
    expect(output).not.toContain('workspaces');
    expect(output).not.toContain(box.dir.path);
  });

  it('a skill that declares an MCP server needs the operator to name it: its server is shared by every user', async () => {
    const response = await create(open, { enable: ['mcp-thing'] });
    expect(response.status).toBe(403);
    const error = await errorOf(response);
    expect(error.code).toBe('skill-not-allowed');
    expect(error.message).toContain('MCP server');
    expect(error.message).toContain('serve.skills');
  });

  it('a skill on by default that the operator did not name is not there on a turn either', async () => {
    const made = await create(open, {});
    const { id } = (await made.json()) as { id: string };
    const events = await streamEvents(
      await open.worker.request(`/v1/sessions/${id}/turns`, {
        token: open.token,
        json: { prompt: 'call node' },
      }),
    );
    const [end] = events.filter((e) => e.type === 'tool-end');
    expect(end).toMatchObject({ name: 'whoami_node', ok: false });
    expect(String(end!.output)).toContain('not available in this session');
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });

  it('skills.disable always wins over the request, even for a skill the operator named', async () => {
    const response = await create(strict, { enable: ['shell'] });
    expect(response.status).toBe(403);
    const error = await errorOf(response);
    expect(error.code).toBe('skill-not-allowed');
    expect(error.message).toContain('skills.disable');
  });

  it('an agent outside serve.agents is a 403; one inside it is accepted', async () => {
    const refused = await create(strict, { agent: 'other' });
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe('agent-not-allowed');
    expect((await create(strict, { agent: 'helper' })).status).toBe(201);
    expect((await create(open, { agent: 'other' })).status).toBe(201);
  });

  it('a raw command the operator allowed still asks under --approval never', async () => {
    const made = await create(strict, { enable: ['raw-shell'] });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const events = await streamEvents(
      await strict.worker.request(`/v1/sessions/${id}/turns`, {
        token: strict.token,
        json: { prompt: 'list files' },
      }),
    );
    expect(events.filter((e) => e.type === 'tool-end')).toEqual([]);
    const last = events.at(-1) as StreamEvent & { requests: Array<{ tool: string; reason: string }> };
    expect(last.type).toBe('approval-request');
    expect(last.requests).toEqual([expect.objectContaining({ tool: 'run_command', reason: 'raw-command' })]);
  });

  it("the operator's rules decide a raw command, and the SSE stream says which rule did", async () => {
    const made = await create(ruled, { enable: ['raw-shell'] });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const turn = (prompt: string) =>
      ruled.worker
        .request(`/v1/sessions/${id}/turns`, { token: ruled.token, json: { prompt } })
        .then(streamEvents);
    // An operator allow lifts the question a raw command always asks in an API session, for that command only.
    const allowed = await turn('say hi');
    expect(allowed.find((e) => e.type === 'tool-rule')).toMatchObject({
      name: 'run_command',
      effect: 'allow',
      pattern: 'run_command(echo hi)',
      source: { kind: 'operator' },
    });
    expect(allowed.find((e) => e.type === 'tool-end')).toMatchObject({ ok: true, output: 'hi\n' });
    expect(allowed.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    // An operator deny refuses without asking; the model is told which rule.
    const denied = await turn('list files');
    expect(denied.find((e) => e.type === 'tool-rule')).toMatchObject({
      effect: 'deny',
      pattern: 'run_command(echo ran)',
      source: { kind: 'operator' },
    });
    expect(denied.some((e) => e.type === 'approval-request')).toBe(false);
    const end = denied.find((e) => e.type === 'tool-end');
    expect(end).toMatchObject({ ok: false });
    expect(String(end!.output)).toContain('run_command(echo ran)');
    // Reported: the rule's source named the operator's config file, a path on the server, to every token holder.
    expect(denied.find((e) => e.type === 'tool-rule')?.source).toEqual({ kind: 'operator' });
    expect(String(end!.output)).toContain('(operator)');
    for (const e of [...allowed, ...denied]) expect(JSON.stringify(e)).not.toContain(box.dir.path);
  });

  // Reported: answering an approval with `edit` ran the edited command although the operator's deny rule names it.
  it("an approval answered with edited arguments is checked against the operator's deny rules again", async () => {
    const made = await create(ruled, { enable: ['raw-shell'] });
    const { id } = (await made.json()) as { id: string };
    const asked = await streamEvents(
      await ruled.worker.request(`/v1/sessions/${id}/turns`, {
        token: ruled.token,
        json: { prompt: 'edit this' },
      }),
    );
    const request = (asked.at(-1) as StreamEvent & { requests: Array<{ id: string }> }).requests[0]!;
    const answered = await ruled.worker.request(`/v1/sessions/${id}/approvals`, {
      token: ruled.token,
      json: { decisions: { [request.id]: { type: 'edit', args: { command: 'echo ran' } } } },
    });
    expect(answered.status).toBe(200);
    const events = await streamEvents(answered);
    expect(events.some((e) => e.type === 'tool-start')).toBe(false);
    expect(events.find((e) => e.type === 'tool-rule')).toMatchObject({
      effect: 'deny',
      pattern: 'run_command(echo ran)',
      source: { kind: 'operator' },
    });
    const end = events.find((e) => e.type === 'tool-end');
    expect(end).toMatchObject({ name: 'run_command', ok: false, outcome: 'refused' });
    expect(String(end!.output)).toContain('edited');
    expect(String(end!.output)).toContain('run_command(echo ran)');
    // The edited call did not run: the turn is `rejected` (finished, but a call was refused).
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'rejected' });
  });

  it('PUT /v1/sessions/{id}/skills: on within the policy, 403 beyond it; a skill switched off is gone on the next turn', async () => {
    const made = await create(strict, { enable: ['raw-shell'] });
    const { id } = (await made.json()) as { id: string };
    const put = (json: unknown) =>
      strict.worker.request(`/v1/sessions/${id}/skills`, { method: 'PUT', token: strict.token, json });
    const refused = await put({ enable: ['shell'] });
    expect(refused.status).toBe(403);
    const error = await errorOf(refused);
    expect(error.code).toBe('skill-not-allowed');
    expect(error.message).toContain('skills.disable');
    expect((await put({ enable: ['no-such-skill'] })).status).toBe(400);

    const off = await put({ disable: ['raw-shell'] });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ enabled: [], disabled: expect.arrayContaining(['raw-shell']) });
    const shown = await strict.worker.request(`/v1/sessions/${id}`, { token: strict.token });
    expect(((await shown.json()) as { grants: { disabled: string[] } }).grants.disabled).toContain(
      'raw-shell',
    );
    const events = await streamEvents(
      await strict.worker.request(`/v1/sessions/${id}/turns`, {
        token: strict.token,
        json: { prompt: 'switched off' },
      }),
    );
    expect(events.some((e) => e.type === 'approval-request')).toBe(false);
    expect(events.find((e) => e.type === 'tool-end')).toMatchObject({ name: 'run_command', ok: false });

    const on = await put({ enable: ['raw-shell'] });
    expect(on.status).toBe(200);
    expect(((await on.json()) as { enabled: string[]; disabled: string[] }).disabled).not.toContain(
      'raw-shell',
    );
  });

  it('GET /v1/agents lists the agents serve.agents allows', async () => {
    const names = async (w: { worker: Worker; token: string }) =>
      (
        (await (await w.worker.request('/v1/agents', { token: w.token })).json()) as {
          agents: Array<{ name: string }>;
        }
      ).agents.map((a) => a.name);
    expect(await names(strict)).toEqual(['helper']);
    expect(await names(open)).toEqual(expect.arrayContaining(['helper', 'other']));
    const [helper] = (
      (await (await strict.worker.request('/v1/agents', { token: strict.token })).json()) as {
        agents: unknown[];
      }
    ).agents;
    expect(helper).toEqual({ name: 'helper', description: 'The helper agent.' });
  });

  it('GET /v1/skills lists what the token holder may enable, from the operator policy', async () => {
    const list = async (w: { worker: Worker; token: string }) => {
      const response = await w.worker.request('/v1/skills', { token: w.token });
      expect(response.status).toBe(200);
      return (
        (await response.json()) as {
          skills: Array<{
            name: string;
            description: string;
            tools: Array<{ name: string; raw: boolean; approval: string }>;
          }>;
        }
      ).skills;
    };
    const openSkills = await list(open);
    const names = openSkills.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['todo', 'filesystem', 'echoer']));
    expect(names).not.toContain('shell');
    expect(names).not.toContain('raw-shell');
    expect(names).not.toContain('in-process');
    expect(openSkills.find((s) => s.name === 'todo')!.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'todo_create_plan', raw: false })]),
    );

    const strictSkills = await list(strict);
    expect(strictSkills.map((s) => s.name)).not.toContain('shell');
    const raw = strictSkills.find((s) => s.name === 'raw-shell');
    expect(raw?.tools).toEqual([
      expect.objectContaining({ name: 'run_command', raw: true, approval: 'always' }),
    ]);
    // Without a token: 401, like every other endpoint but health.
    expect((await open.worker.request('/v1/skills')).status).toBe(401);
  });
});
