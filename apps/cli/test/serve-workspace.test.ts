import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';

// Issue 27, defect 3: every user of `birdie serve` had one working folder, the server's. Alice's agent wrote
// alice-notes.txt (she approved it) and Bob's read_file read it. Now each user's tools run in their own folder under a
// workspace root every worker mounts: two workers over one PostgreSQL (their own BIRDIE_HOME each, like two machines)
// and one shared root.
// (A folder counts its own size: 4 KiB on ext4, so the quota leaves room for a few.)

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');
const SECRET = 'alice secret\n';

let pg: PostgresServer;
let box: Sandbox;
let root: string;
let accountHome: string;
let w1: Worker;
let w2: Worker;
const tokens = { alice: '', bob: '', carol: '' };

// Bash tools, none raw (no approval asked): they show where a tool runs and what it can reach.
const PROBE_SKILL = `---
name: probe
description: Probes what a tool can see
enabled_by_default: true
---

## Tools

### where_am_i
description: Print the working folder.
entrypoint: bash:pwd

### plant_link
description: Make a symbolic link.
entrypoint: bash:ln -s -- {target} {name}
schema:
  type: object
  properties:
    target:
      type: string
    name:
      type: string
  required: [target, name]

### peek
description: Print a file.
entrypoint: bash:cat -- {path}
schema:
  type: object
  properties:
    path:
      type: string
  required: [path]

### fill
description: Write a file of zeros.
entrypoint: bash:head -c {bytes} /dev/zero > {name}
schema:
  type: object
  properties:
    bytes:
      type: string
    name:
      type: string
  required: [bytes, name]

### interfaces
description: List the network interfaces the tool has.
entrypoint: bash:cat /proc/net/dev
network: true
`;

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: BUNDLED,
    BIRDIE_DATABASE_URL: pg.url,
    BIRDIE_DATABASE_SCHEMA: `workspace_${process.pid}`,
  });
  root = join(box.dir.path, 'shared', 'workspaces');
  const skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'probe'), { recursive: true });
  await writeFile(join(skills, 'probe', 'SKILL.md'), PROBE_SKILL);
  const aliceNotes = join(root, 'alice', 'alice-notes.txt');
  // A file in the home of the account the server runs as (HOME of the workers), outside /tmp (which the sandbox
  // replaces anyway).
  accountHome = await mkdtemp('/var/tmp/birdie-serve-home-');
  const serverSecret = join(accountHome, 'server-secret.txt');
  await writeFile(serverSecret, 'server secret\n');
  const scripts = {
    w1: [
      {
        match: 'alice writes',
        tool_calls: [{ name: 'write_file', args: { path: 'alice-notes.txt', content: SECRET } }],
      },
      { match: 'alice writes', text: 'Written.' },
      { match: 'bob reads', tool_calls: [{ name: 'read_file', args: { path: 'alice-notes.txt' } }] },
      { match: 'bob reads', text: 'Read.' },
      {
        match: 'bob escapes',
        tool_calls: [
          { name: 'read_file', args: { path: '../alice/alice-notes.txt' } },
          { name: 'read_file', args: { path: aliceNotes } },
          { name: 'plant_link', args: { target: aliceNotes, name: 'link.txt' } },
          { name: 'peek', args: { path: aliceNotes } },
          { name: 'where_am_i', args: {} },
          { name: 'peek', args: { path: serverSecret } },
        ],
      },
      {
        match: 'bob escapes',
        tool_calls: [
          { name: 'read_file', args: { path: 'link.txt' } },
          { name: 'peek', args: { path: 'link.txt' } },
        ],
      },
      { match: 'bob escapes', text: 'Tried.' },
      { match: 'network', tool_calls: [{ name: 'interfaces', args: {} }] },
      { match: 'network', text: 'Listed.' },
      { match: 'carol fills', tool_calls: [{ name: 'fill', args: { bytes: '20000', name: 'big.bin' } }] },
      { match: 'carol fills', text: 'Filled.' },
    ],
    w2: [
      // (each reply is used once: twice for two sessions)
      { match: 'alice reads', tool_calls: [{ name: 'read_file', args: { path: 'alice-notes.txt' } }] },
      { match: 'alice reads', text: 'Read back.' },
      { match: 'alice reads', tool_calls: [{ name: 'read_file', args: { path: 'alice-notes.txt' } }] },
      { match: 'alice reads', text: 'Read back.' },
      { match: 'alice again', text: 'Still under quota.' },
    ],
  };
  // One worker takes the root from its config, the other from the flag; both limit a workspace to 4096 bytes.
  const start = async (name: 'w1' | 'w2') => {
    const script = join(box.dir.path, `${name}.json`);
    const home = join(box.dir.path, `home-${name}`);
    await mkdir(home, { recursive: true });
    await writeFile(script, JSON.stringify({ replies: scripts[name] }));
    const serve = { limits: { workspace_bytes: 16384 }, ...(name === 'w1' ? { workspaces: root } : {}) };
    await writeFile(join(home, 'config.json'), JSON.stringify({ settings: { serve } }));
    return startWorker(
      ['--skills-dir', skills, '--grace', '1', ...(name === 'w2' ? ['--workspaces', root] : [])],
      {
        env: { ...box.env, HOME: accountHome, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
        cwd: box.cwd,
        home,
      },
    );
  };
  // The schema is made (migrated) by the first command that opens the database.
  for (const user of ['alice', 'bob', 'carol'] as const)
    tokens[user] = await makeToken(user, { env: box.env, cwd: box.cwd });
  [w1, w2] = await Promise.all([start('w1'), start('w2')]);
}, 180_000);

afterAll(async () => {
  for (const w of [w1, w2]) w?.process.kill('SIGKILL');
  await box?.cleanup();
  if (accountHome) await rm(accountHome, { recursive: true, force: true });
  await pg?.stop();
});

const newSession = async (w: Worker, user: keyof typeof tokens) => {
  const response = await w.request('/v1/sessions', { token: tokens[user], json: { enable: ['filesystem'] } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const turn = (w: Worker, id: string, user: keyof typeof tokens, prompt: string) =>
  w.request(`/v1/sessions/${id}/turns`, { token: tokens[user], json: { prompt } });
const outputs = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === 'tool-end')
    .map((e) => ({ name: e.name, ok: e.ok, output: String(e.output) }));

/** Alice's session: write_file asks, she approves, the file is written. */
async function aliceWrites(): Promise<string> {
  const id = await newSession(w1, 'alice');
  const asked = await streamEvents(await turn(w1, id, 'alice', 'alice writes her notes'));
  const last = asked.at(-1)!;
  expect(last.type).toBe('approval-request');
  const [request] = last.requests as Array<{ id: string; tool: string }>;
  expect(request!.tool).toBe('write_file');
  const answered = await w1.request(`/v1/sessions/${id}/approvals`, {
    token: tokens.alice,
    json: { decisions: { [request!.id]: { type: 'approve' } } },
  });
  const rest = await streamEvents(answered);
  expect(outputs(rest)).toMatchObject([{ name: 'write_file', ok: true }]);
  expect(rest.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  return id;
}

describe('a workspace per user under birdie serve', { timeout: 120_000 }, () => {
  let aliceSession: string;

  it("bob's read_file does not find the file alice's agent wrote (defect 27.3)", async () => {
    aliceSession = await aliceWrites();
    const id = await newSession(w1, 'bob');
    const events = await streamEvents(await turn(w1, id, 'bob', 'bob reads her notes'));
    const [read] = outputs(events);
    expect(read).toMatchObject({ name: 'read_file', ok: false });
    expect(read!.output).toContain('No such file: "alice-notes.txt"');
    expect(JSON.stringify(events)).not.toContain('alice secret');
    // The file is in alice's folder under the shared root, made for her alone.
    expect(await readFile(join(root, 'alice', 'alice-notes.txt'), 'utf8')).toBe(SECRET);
    expect((await stat(join(root, 'alice'))).mode & 0o777).toBe(0o700);
  });

  it('nor by .., an absolute path, a symlink his tool planted, or a shell tool (which runs sandboxed there)', async () => {
    const id = await newSession(w1, 'bob');
    const events = await streamEvents(await turn(w1, id, 'bob', 'bob escapes'));
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(JSON.stringify(events)).not.toContain('alice secret');
    const results = outputs(events);
    // Calls of one step run side by side: their results are compared by what each was for.
    const result = (name: string, text: string) =>
      results.find((r) => r.name === name && r.output.includes(text)) ?? { name, text, missing: true };
    expect(results).toHaveLength(8);
    expect(JSON.stringify(events)).not.toContain('server secret');
    expect(result('peek', 'server-secret.txt: No such file or directory')).toMatchObject({ ok: false });
    // File tools: `..` and an absolute path refused by name, the planted link (pointing out) refused when followed.
    expect(result('read_file', '"../alice/alice-notes.txt"')).toMatchObject({ ok: false });
    expect(result('read_file', 'is outside the working directory')).toMatchObject({ ok: false });
    expect(result('plant_link', '')).toMatchObject({ ok: true });
    expect(result('read_file', 'leads outside the working directory through a symbolic link')).toMatchObject({
      ok: false,
    });
    // Bash tools run in bob's own folder, sandboxed: the other users' folders are not there at all.
    expect(result('where_am_i', '')).toMatchObject({ ok: true, output: `${join(root, 'bob')}\n` });
    expect(
      result('peek', `cat: ${join(root, 'alice', 'alice-notes.txt')}: No such file or directory`),
    ).toMatchObject({ ok: false });
    expect(result('peek', 'cat: link.txt: No such file or directory')).toMatchObject({ ok: false });
  });

  it("the workspace follows alice's sessions to the other worker", async () => {
    // The same session, its next turn on worker 2 (whose own home never saw it) …
    const again = await streamEvents(await turn(w2, aliceSession, 'alice', 'alice reads her notes'));
    expect(outputs(again)).toEqual([{ name: 'read_file', ok: true, output: SECRET }]);
    // … and a new session of hers there.
    const id = await newSession(w2, 'alice');
    const fresh = await streamEvents(await turn(w2, id, 'alice', 'alice reads her notes'));
    expect(outputs(fresh)).toEqual([{ name: 'read_file', ok: true, output: SECRET }]);
  });

  it('a shell tool that declares network: true gets no network under serve', async () => {
    const id = await newSession(w1, 'alice');
    const [listed] = outputs(await streamEvents(await turn(w1, id, 'alice', 'network please')));
    expect(listed).toMatchObject({ name: 'interfaces', ok: true });
    const names = listed!.output
      .split('\n')
      .filter((line) => line.includes(':') && !line.includes('|'))
      .map((line) => line.split(':')[0]!.trim());
    expect(names).toEqual(['lo']);
  });

  it("a turn of a user over the workspace quota is refused with 413, before it starts; others' turns run", async () => {
    const id = await newSession(w1, 'carol');
    const filled = await streamEvents(await turn(w1, id, 'carol', 'carol fills her folder'));
    // Within one turn a tool may overshoot: the quota is checked before each turn.
    expect(outputs(filled)).toMatchObject([{ name: 'fill', ok: true }]);
    for (const w of [w1, w2]) {
      const refused = await turn(w, id, 'carol', 'carol again');
      expect(refused.status).toBe(413);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('workspace-bytes-exceeded');
      expect(error.message).toContain('serve.limits.workspace_bytes');
      expect(error.message).toContain('16384');
    }
    const fine = await streamEvents(await turn(w2, aliceSession, 'alice', 'alice again'));
    expect(fine.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });
});

describe('birdie serve without bubblewrap', { timeout: 60_000 }, () => {
  it('refuses to start while shell or Python tools are allowed, naming the bubblewrap package', async () => {
    const bin = join(box.dir.path, 'no-bwrap');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'none.json'), JSON.stringify({ replies: [] }));
    const home = join(box.dir.path, 'home-nobwrap');
    await mkdir(home, { recursive: true });
    const env = {
      ...box.env,
      PATH: bin,
      BIRDIE_HOME: home,
      LLM_VENDOR: 'scripted',
      LLM_SCRIPT: join(bin, 'none.json'),
    };
    const skills = join(box.dir.path, 'skills');
    const refused = await birdie(['serve', '--port', '0', '--skills-dir', skills], { env, cwd: box.cwd });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('bubblewrap');
    expect(refused.stderr).toMatch(/where_am_i|probe/);
    expect(refused.stdout).not.toContain('listening');
  });
});
