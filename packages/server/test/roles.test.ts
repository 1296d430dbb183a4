import { takenOverError } from '@birdie/store/backend';
import { describe, expect, it } from 'vitest';
import { runFor } from '../src/routes/runs.js';
import { useServer } from './helpers.js';

// Roles (issue 27): an admin token may list and revoke tokens and read any user's runs; a user token only its own.

type ErrorBody = { error: { code: string; message: string } };

describe('admin and user tokens', () => {
  const h = useServer();
  const admin = async () => (await h.store.tokens.create('ops', { name: 'operator', admin: true })).token;

  it('an admin token lists every token with its role, never a secret or a hash; ?user= narrows it', async () => {
    const ops = await admin();
    const alice = await h.store.tokens.create('alice', { name: 'laptop' });
    await h.store.tokens.create('bob');
    const response = await h.request('/v1/tokens', { token: ops });
    expect(response.status).toBe(200);
    const text = await response.text();
    const { tokens } = JSON.parse(text) as { tokens: Array<Record<string, unknown>> };
    expect(tokens.map((t) => [t.userId, t.role]).sort()).toEqual([
      ['alice', 'user'],
      ['bob', 'user'],
      ['ops', 'admin'],
    ]);
    expect(tokens.find((t) => t.userId === 'alice')).toEqual({
      id: alice.record.id,
      userId: 'alice',
      name: 'laptop',
      role: 'user',
      createdAt: alice.record.createdAt.toISOString(),
    });
    // Neither the tokens nor their hashes travel.
    const hashes = [alice.token].map((t) => t.slice(4));
    for (const secret of hashes) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/bdt_|[0-9a-f]{64}|hash/);

    const only = (await (await h.request('/v1/tokens?user=alice', { token: ops })).json()) as {
      tokens: Array<{ id: string }>;
    };
    expect(only.tokens.map((t) => t.id)).toEqual([alice.record.id]);
    const bad = await h.request('/v1/tokens?user=../x', { token: ops });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.code).toBe('invalid-request');
  });

  it('a user token gets 403 forbidden on the admin routes: bob cannot list tokens nor revoke alice’s', async () => {
    const alice = await h.store.tokens.create('alice');
    const bob = await h.token('bob');
    const list = await h.request('/v1/tokens', { token: bob });
    expect(list.status).toBe(403);
    const body = (await list.json()) as ErrorBody;
    expect(body.error.code).toBe('forbidden');
    expect(body.error.message).toContain('admin token');

    const revoke = await h.request(`/v1/tokens/${alice.record.id}`, { method: 'DELETE', token: bob });
    expect(revoke.status).toBe(403);
    expect(((await revoke.json()) as ErrorBody).error.code).toBe('forbidden');
    // Alice's token still works.
    expect((await h.request('/v1/sessions', { token: alice.token })).status).toBe(200);
  });

  it('an admin token revokes a token: it fails at its next request; an unknown or malformed id is 404', async () => {
    const ops = await admin();
    const alice = await h.store.tokens.create('alice');
    expect((await h.request('/v1/sessions', { token: alice.token })).status).toBe(200);
    const revoked = await h.request(`/v1/tokens/${alice.record.id}`, { method: 'DELETE', token: ops });
    expect(revoked.status).toBe(204);
    expect((await h.request('/v1/sessions', { token: alice.token })).status).toBe(401);
    for (const id of [alice.record.id, 'tok_0000000000000000', 'nope']) {
      const missing = await h.request(`/v1/tokens/${id}`, { method: 'DELETE', token: ops });
      expect(missing.status, id).toBe(404);
      expect(((await missing.json()) as ErrorBody).error).toEqual({
        code: 'not-found',
        message: `no token ${id}`,
      });
    }
  });

  it("runs: a user token is not told the server's host name nor its process ids; an admin token is", async () => {
    // Reported: on a shared server any user's GET /v1/runs showed the machine's name and the worker's pid, and a run
    // that died said "process 4242 on HOST" in its error.
    const ops = await admin();
    const alice = await h.token('alice');
    const s = await h.store.sessions.create('alice');
    const done = await h.store.runs.start({ sessionId: s.id, userId: 'alice', model: 'm' });
    await h.store.runs.finish(done, { status: 'ok' });
    const hostName = (await h.store.runs.get(done, 'alice'))?.host;
    expect(hostName).toBeTruthy();
    // A run another worker left running, holding no lease: the store finds it died.
    const s2 = await h.store.sessions.create('alice');
    const gone = await h.worker().store.runs.start({ sessionId: s2.id, userId: 'alice', model: 'm' });
    expect(await h.store.runs.reap()).toEqual([gone]);
    const diedError = (await h.store.runs.get(gone, 'alice'))?.error;
    expect(diedError).toBe(`died: process ${process.pid} on ${hostName} stopped without finishing it`);

    const listed = (await (await h.request('/v1/runs', { token: alice })).json()) as { runs: object[] };
    const one = await (await h.request(`/v1/runs/${done}`, { token: alice })).json();
    const dead = (await (await h.request(`/v1/runs/${gone}`, { token: alice })).json()) as { error?: string };
    expect(listed.runs).toHaveLength(2);
    for (const run of [...listed.runs, one, dead]) {
      expect(run).toHaveProperty('status');
      expect(run).not.toHaveProperty('host');
      expect(run).not.toHaveProperty('pid');
    }
    expect(dead.error).toBe('died: the process running it stopped without finishing it');

    const seen = (await (await h.request('/v1/runs?user=alice', { token: ops })).json()) as {
      runs: Array<{ id: number; host?: string; pid?: number; error?: string }>;
    };
    expect(seen.runs.find((r) => r.id === done)).toMatchObject({ host: hostName, pid: process.pid });
    expect(seen.runs.find((r) => r.id === gone)?.error).toBe(diedError);
  });

  it('runs: a run found died when its lease was taken over is said to a user token without its process either', async () => {
    const s = await h.store.sessions.create('alice');
    const id = await h.store.runs.start({ sessionId: s.id, userId: 'alice' });
    const run = (await h.store.runs.get(id, 'alice'))!;
    const holder = { owner: 'w1', host: 'build-7', pid: 4242, since: new Date(), expiresAt: new Date() };
    const died = { ...run, status: 'died' as const, error: takenOverError(holder) };
    const alice = (await h.store.tokens.create('alice')).record;
    const ops = (await h.store.tokens.create('ops', { admin: true })).record;
    expect(runFor(alice, died)).toMatchObject({
      error: 'died: the process running it stopped without finishing it',
    });
    expect(JSON.stringify(runFor(alice, died))).not.toMatch(/build-7|4242/);
    expect(runFor(ops, died)).toEqual(died);
    // A run that died for another reason (its end not recorded while the database was down) keeps its words.
    const unrecorded = {
      ...died,
      error: 'died: the turn ended while the database server could not be reached',
    };
    expect(runFor(alice, unrecorded).error).toBe(unrecorded.error);
  });

  it("runs: bob cannot see alice's runs (403 with ?user=alice); an admin token sees any user's", async () => {
    const ops = await admin();
    const bob = await h.token('bob');
    const s = await h.store.sessions.create('alice');
    const run = await h.store.runs.start({ sessionId: s.id, userId: 'alice', model: 'm' });
    await h.store.runs.finish(run, { status: 'ok' });

    const refused = await h.request('/v1/runs?user=alice', { token: bob });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('forbidden');
    // Their own name is their own runs.
    const own = (await (await h.request('/v1/runs?user=bob', { token: bob })).json()) as { runs: unknown[] };
    expect(own.runs).toEqual([]);

    const seen = await h.request('/v1/runs?user=alice', { token: ops });
    expect(seen.status).toBe(200);
    const { runs } = (await seen.json()) as {
      runs: Array<{ id: number; userId: string; sessionId: string }>;
    };
    expect(runs.map((r) => [r.id, r.userId, r.sessionId])).toEqual([[run, 'alice', s.id]]);
    const ofSession = (await (
      await h.request(`/v1/runs?user=alice&session=${s.id}`, { token: ops })
    ).json()) as { runs: unknown[] };
    expect(ofSession.runs).toHaveLength(1);
    // Without ?user=, an admin token reads its own user's runs like any token.
    expect(
      ((await (await h.request('/v1/runs', { token: ops })).json()) as { runs: unknown[] }).runs,
    ).toEqual([]);
  });
});
