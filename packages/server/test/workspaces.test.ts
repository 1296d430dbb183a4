import { existsSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspaces } from '../src/index.js';
import { events, useServer } from './helpers.js';

// The server's side of "a workspace per user": the folder a turn gets, made 0700 on first use; the quota refused
// before the turn starts; a session's own folder deleted with it. (The CLI's test/serve-workspace.test.ts runs real
// tools in them, on two workers.)

const root = (home: string) => join(home, 'workspaces');

describe('a workspace per user', () => {
  const h = useServer();

  it("each turn runs in its user's folder, made on first use, readable by the server's user only", async () => {
    const { server, runtime } = h.worker({ workspaces: { root: root(h.home) } });
    const seen: Array<string | undefined> = [];
    runtime.script = async ({ handlers }) => {
      seen.push(handlers.workspace);
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    for (const user of ['alice', 'bob', 'alice']) {
      const token = await h.token(user);
      const session = (await (
        await server.fetch(
          new Request('http://localhost/v1/sessions', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: '{}',
          }),
        )
      ).json()) as { id: string };
      const turn = await server.fetch(
        new Request(`http://localhost/v1/sessions/${session.id}/turns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"prompt":"hi"}',
        }),
      );
      expect((await events(turn)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    }
    expect(seen).toEqual([
      join(root(h.home), 'alice'),
      join(root(h.home), 'bob'),
      join(root(h.home), 'alice'),
    ]);
    for (const path of [root(h.home), join(root(h.home), 'alice')])
      expect((await stat(path)).mode & 0o777).toBe(0o700);
  });

  it('without workspaces, a turn gets none (the runtime keeps its own folder)', async () => {
    let seen: string | undefined = 'unset';
    h.runtime.script = async ({ handlers }) => {
      seen = handlers.workspace;
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    await events(await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } }));
    expect(seen).toBeUndefined();
  });
});

describe('Workspaces', () => {
  const h = useServer();

  it('refuses a turn of a user over the quota with 413 workspace-bytes-exceeded, before the turn runs', async () => {
    const workspaces = { root: root(h.home), maxBytes: 10_000, maxBytesName: 'serve.limits.workspace_bytes' };
    const { server, runtime } = h.worker({ workspaces });
    let ran = 0;
    runtime.script = async () => {
      ran++;
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const post = (path: string, token: string, body: unknown) =>
      server.fetch(
        new Request(`http://localhost${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const alice = await h.token('alice');
    const { id } = (await (await post('/v1/sessions', alice, {})).json()) as { id: string };
    expect((await post(`/v1/sessions/${id}/turns`, alice, { prompt: 'one' })).status).toBe(200);
    await writeFile(join(root(h.home), 'alice', 'big.bin'), Buffer.alloc(20_000));
    const refused = await post(`/v1/sessions/${id}/turns`, alice, { prompt: 'two' });
    expect(refused.status).toBe(413);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('workspace-bytes-exceeded');
    expect(error.message).toMatch(
      /holds \d+ bytes, more than the server allows \(serve\.limits\.workspace_bytes: 10000\)/,
    );
    expect(ran).toBe(1);
  });

  it('a folder made once is checked, not made again, on later turns; one removed meanwhile is made again', async () => {
    for (const per of ['user', 'session'] as const) {
      const workspaces = new Workspaces({ root: root(h.home), per });
      const session = { id: '2026-11-29_8', userId: 'carol' };
      const folder = await workspaces.open(session);
      await writeFile(join(folder, 'kept.txt'), 'kept');
      expect(await workspaces.open(session)).toBe(folder);
      expect(existsSync(join(folder, 'kept.txt'))).toBe(true);
      // Removed by hand (or by another worker deleting the session) between two turns.
      await rm(join(root(h.home), 'carol'), { recursive: true, force: true });
      expect(await workspaces.open(session)).toBe(folder);
      for (const path of new Set([join(root(h.home), 'carol'), folder]))
        expect((await stat(path)).mode & 0o777).toBe(0o700);
    }
  });

  it("per session: a folder inside the user's, deleted with the session; the user's folder stays", async () => {
    const workspaces = new Workspaces({ root: root(h.home), per: 'session' });
    const session = { id: '2026-11-29_7', userId: 'alice' };
    const folder = await workspaces.open(session);
    expect(folder).toBe(join(root(h.home), 'alice', '2026-11-29_7'));
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    await writeFile(join(folder, 'a.txt'), 'a');
    const { server } = h.worker({ workspaces: { root: root(h.home), per: 'session' } });
    const token = await h.token('alice');
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = (await (
      await server.fetch(
        new Request('http://localhost/v1/sessions', { method: 'POST', headers: auth, body: '{}' }),
      )
    ).json()) as { id: string };
    const own = await workspaces.open({ id: made.id, userId: 'alice' });
    const deleted = await server.fetch(
      new Request(`http://localhost/v1/sessions/${made.id}`, { method: 'DELETE', headers: auth }),
    );
    expect(deleted.status).toBe(204);
    expect(existsSync(own)).toBe(false);
    expect(existsSync(folder)).toBe(true);
  });

  it('never makes a path of an id outside the patterns, and needs an absolute root', async () => {
    const workspaces = new Workspaces({ root: root(h.home), per: 'session' });
    for (const session of [
      { id: '2026-11-29_1', userId: '..' },
      { id: '2026-11-29_1', userId: 'a/b' },
      { id: '../x', userId: 'alice' },
    ])
      expect(() => workspaces.folderOf(session)).toThrow(/invalid (user|session) id/);
    expect(() => new Workspaces({ root: 'relative/root' })).toThrow(/absolute/);
    await mkdir(root(h.home), { recursive: true });
    expect(await workspaces.usage('nobody')).toBe(0);
  });
});
