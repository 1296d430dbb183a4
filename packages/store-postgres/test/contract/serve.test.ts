import { SESSION_FILE_LIMITS } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, rejection, useBackend } from './harness.js';

// What `birdie serve` needs of every back end (issue 17): the session's files, API tokens, the agent a session
// starts with, and a cancel request that reaches the lease's holder in another process.
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) =>
  data === undefined ? undefined : new TextDecoder().decode(data);

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('session files', () => {
    it('puts, lists, reads and removes files in one change set; another store sees them', async () => {
      const s = await t.store.sessions.create('alice');
      expect(await t.store.files.list(s.id, 'alice')).toEqual([]);
      await t.store.files.apply(s.id, 'alice', {
        put: [
          { path: 'todo.json', content: bytes('{"steps":[]}') },
          { path: 'notes/a.md', content: bytes('# a') },
        ],
      });
      const listed = await t.store.files.list(s.id, 'alice');
      expect(listed.map((f) => [f.path, f.size])).toEqual([
        ['notes/a.md', 3],
        ['todo.json', 12],
      ]);
      expect(listed[1]!.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(listed[1]!.updatedAt).toBeInstanceOf(Date);

      const other = await t.env.open();
      expect(text(await other.files.read(s.id, 'alice', 'todo.json'))).toBe('{"steps":[]}');
      await other.files.apply(s.id, 'alice', {
        put: [{ path: 'todo.json', content: bytes('{"steps":[1]}') }],
        remove: ['notes/a.md'],
      });
      expect(text(await t.store.files.read(s.id, 'alice', 'todo.json'))).toBe('{"steps":[1]}');
      expect(await t.store.files.read(s.id, 'alice', 'notes/a.md')).toBeUndefined();
      expect((await t.store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['todo.json']);
      // Removing what is not there is not an error; an empty change set only checks the owner.
      await t.store.files.apply(s.id, 'alice', { remove: ['gone.txt'] });
      await t.store.files.apply(s.id, 'alice', {});
    });

    it("checks the owner: another user's session is not-owner, a missing one not-found", async () => {
      const s = await t.store.sessions.create('alice');
      await t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('x') }] });
      expect(await codeOf(() => t.store.files.list(s.id, 'bob'))).toBe('not-owner');
      expect(await codeOf(() => t.store.files.read(s.id, 'bob', 'a'))).toBe('not-owner');
      expect(await codeOf(() => t.store.files.apply(s.id, 'bob', { remove: ['a'] }))).toBe('not-owner');
      expect(await codeOf(() => t.store.files.list('2026-01-01_9', 'alice'))).toBe('not-found');
    });

    it.each([
      '../etc/passwd',
      '/abs',
      'a/../b',
      './a',
      'a//b',
      'a\0b',
      'space here',
      '',
      `${'x'.repeat(200)}/${'y'.repeat(60)}`,
    ])('refuses the path %j', async (path) => {
      const s = await t.store.sessions.create('alice');
      expect(
        await codeOf(() => t.store.files.apply(s.id, 'alice', { put: [{ path, content: bytes('x') }] })),
      ).toBe('invalid-argument');
      expect(await codeOf(() => t.store.files.read(s.id, 'alice', path))).toBe('invalid-argument');
    });

    it('refuses a file, or a session, over the limits, and writes nothing of that change set', async () => {
      const s = await t.store.sessions.create('alice');
      const big = new Uint8Array(SESSION_FILE_LIMITS.fileBytes + 1);
      const error = await rejection(
        t.store.files.apply(s.id, 'alice', {
          put: [
            { path: 'ok.txt', content: bytes('fine') },
            { path: 'big.bin', content: big },
          ],
        }),
      );
      expect(error.code).toBe('invalid-argument');
      expect(error.message).toContain('big.bin');
      const half = new Uint8Array(SESSION_FILE_LIMITS.fileBytes);
      const count = SESSION_FILE_LIMITS.sessionBytes / SESSION_FILE_LIMITS.fileBytes;
      await t.store.files.apply(s.id, 'alice', {
        put: Array.from({ length: count }, (_, i) => ({ path: `f${i}`, content: half })),
      });
      const over = await rejection(
        t.store.files.apply(s.id, 'alice', { put: [{ path: 'one-more', content: bytes('x') }] }),
      );
      expect(over.code).toBe('invalid-argument');
      expect(over.message).toContain('more than the');
      // Replacing a file by a smaller one keeps the total under the limit.
      await t.store.files.apply(s.id, 'alice', { put: [{ path: 'f0', content: bytes('small') }] });
      expect(
        await codeOf(() =>
          t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('1') }], remove: ['a'] }),
        ),
      ).toBe('invalid-argument');
      expect(
        await codeOf(() =>
          t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: 'text' as never }] }),
        ),
      ).toBe('invalid-argument');
    });

    it('a file whose bytes no longer match their checksum is corrupt-record, named', async () => {
      const s = await t.store.sessions.create('alice');
      await t.store.files.apply(s.id, 'alice', { put: [{ path: 'todo.json', content: bytes('{"a":1}') }] });
      await t.env.exec("UPDATE session_files SET sha256 = ? WHERE path = 'todo.json'", ['0'.repeat(64)]);
      const error = await rejection(t.store.files.read(s.id, 'alice', 'todo.json'));
      expect(error.code).toBe('corrupt-record');
      expect(error.message).toContain('todo.json');
      expect(error.damage).toMatchObject({ sessionId: s.id, table: 'session_files' });
    });

    it('writes are fenced by the lease: busy while another store holds it, lost once taken over', async () => {
      const s = await t.store.sessions.create('alice');
      const other = await t.env.open();
      const lease = await other.leases.acquire(s.id);
      expect(
        await codeOf(() => t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('1') }] })),
      ).toBe('session-busy');
      // Reads are not fenced.
      expect(await t.store.files.list(s.id, 'alice')).toEqual([]);
      await other.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('1') }] });
      await lease.release();
      await t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('2') }] });
      expect(text(await other.files.read(s.id, 'alice', 'a'))).toBe('2');
    });

    it('go with their session', async () => {
      const s = await t.store.sessions.create('alice');
      await t.store.files.apply(s.id, 'alice', { put: [{ path: 'a', content: bytes('1') }] });
      await t.store.sessions.delete(s.id, 'alice');
      expect(Number(await t.env.one('SELECT count(*) AS n FROM session_files'))).toBe(0);
    });
  });

  describe('API tokens', () => {
    it('are shown once, stored as a hash, verified, listed per user and revoked', async () => {
      const { token, record } = await t.store.tokens.create('alice', { name: 'laptop' });
      expect(token).toMatch(/^bdt_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ userId: 'alice', name: 'laptop' });
      expect(record.id).toMatch(/^tok_[0-9a-f]{16}$/);
      // Only the hash is stored: the token itself appears nowhere in the table.
      const stored = await t.env.one<string>('SELECT hash FROM api_tokens WHERE id = ?', [record.id]);
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      expect(stored).not.toContain(token.slice(4));

      const other = await t.env.open();
      const verified = await other.tokens.verify(token);
      expect(verified).toMatchObject({ id: record.id, userId: 'alice' });
      expect(verified!.lastUsedAt).toBeInstanceOf(Date);
      expect(
        await other.tokens.verify(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`),
      ).toBeUndefined();
      expect(await other.tokens.verify('Bearer nonsense')).toBeUndefined();
      expect(await other.tokens.verify(undefined as never)).toBeUndefined();

      const bob = await t.store.tokens.create('bob');
      expect(bob.record.name).toBeUndefined();
      expect((await t.store.tokens.list()).map((r) => r.userId).sort()).toEqual(['alice', 'bob']);
      expect((await t.store.tokens.list('bob')).map((r) => r.id)).toEqual([bob.record.id]);
      expect(await t.store.tokens.revoke(record.id)).toBe(true);
      expect(await t.store.tokens.revoke(record.id)).toBe(false);
      expect(await other.tokens.verify(token)).toBeUndefined();
      expect(await codeOf(() => t.store.tokens.revoke('nope'))).toBe('invalid-id');
      expect(await codeOf(() => t.store.tokens.create('../x'))).toBe('invalid-id');
      expect(await codeOf(() => t.store.tokens.create('alice', { name: 'a\nb' }))).toBe('invalid-argument');
    });

    it('carry their role: a user token by default, an admin token when asked, as created, listed and verified', async () => {
      const user = await t.store.tokens.create('alice');
      const admin = await t.store.tokens.create('ops', { name: 'operator', admin: true });
      expect(user.record.admin).toBe(false);
      expect(admin.record).toMatchObject({ userId: 'ops', name: 'operator', admin: true });
      const other = await t.env.open();
      expect((await other.tokens.verify(admin.token))?.admin).toBe(true);
      expect((await other.tokens.verify(user.token))?.admin).toBe(false);
      // Made in the same millisecond, they may list in either order.
      expect((await other.tokens.list()).map((r) => [r.userId, r.admin]).sort()).toEqual([
        ['alice', false],
        ['ops', true],
      ]);
      expect(await codeOf(() => t.store.tokens.create('alice', { admin: 'yes' as never }))).toBe(
        'invalid-argument',
      );
    });
  });

  describe('revoked API tokens', () => {
    it('are kept but never authenticate, listed or revoked again; standing tells revoked from never had one', async () => {
      const only = await t.store.tokens.create('carol');
      const first = await t.store.tokens.create('dave');
      const second = await t.store.tokens.create('dave', { name: 'second' });
      expect(await t.store.tokens.standing('carol')).toBe('active');
      expect(await t.store.tokens.standing('erin')).toBe('none');

      expect(await t.store.tokens.revoke(only.record.id)).toBe(true);
      expect(await t.store.tokens.revoke(first.record.id)).toBe(true);
      const other = await t.env.open();
      expect(await other.tokens.verify(only.token)).toBeUndefined();
      expect(await other.tokens.verify(first.token)).toBeUndefined();
      expect((await other.tokens.verify(second.token))?.id).toBe(second.record.id);
      // Left out of every list, and a second revoke finds nothing to revoke.
      expect((await other.tokens.list()).map((r) => r.id)).toEqual([second.record.id]);
      expect(await other.tokens.list('carol')).toEqual([]);
      expect(await other.tokens.revoke(only.record.id)).toBe(false);
      // Listed when asked for, each with when it was revoked: every user's, or one user's.
      // Both were created in the same millisecond more often than not, and the list breaks a tie by id,
      // so the order between them is not part of the contract.
      const revoked = await other.tokens.list(undefined, { revoked: true });
      expect(revoked.map((r) => r.id).sort()).toEqual([only.record.id, first.record.id].sort());
      for (const r of revoked) expect(r.revokedAt).toBeInstanceOf(Date);
      const onlyRevoked = revoked.find((r) => r.id === only.record.id)!;
      expect(onlyRevoked.revokedAt!.getTime()).toBeGreaterThanOrEqual(only.record.createdAt.getTime());
      expect((await other.tokens.list('dave', { revoked: true })).map((r) => r.id)).toEqual([
        first.record.id,
      ]);
      expect(await other.tokens.list('erin', { revoked: true })).toEqual([]);
      expect((await other.tokens.list('dave'))[0]).not.toHaveProperty('revokedAt');
      // Kept in the table: the user whose every token was revoked is told from one who never had one.
      expect(
        Number(
          await t.env.one<number | string>('SELECT count(*) FROM api_tokens WHERE user_id = ?', ['carol']),
        ),
      ).toBe(1);
      expect(await other.tokens.standing('carol')).toBe('revoked');
      expect(await other.tokens.standing('dave')).toBe('active');
      expect(await other.tokens.standing('erin')).toBe('none');
      expect(await other.tokens.revoke(second.record.id)).toBe(true);
      expect(await other.tokens.standing('dave')).toBe('revoked');
      // A new token gives the user their access back.
      await other.tokens.create('carol');
      expect(await t.store.tokens.standing('carol')).toBe('active');
      expect(await codeOf(() => t.store.tokens.standing('../x'))).toBe('invalid-id');
    });
  });

  describe('the agent a session starts with', () => {
    it('is kept with the session and validated', async () => {
      const s = await t.store.sessions.create('alice', { agent: 'reviewer' });
      expect(s.agent).toBe('reviewer');
      expect((await (await t.env.open()).sessions.get(s.id, 'alice'))?.agent).toBe('reviewer');
      expect((await t.store.sessions.create('alice')).agent).toBeUndefined();
      expect(await codeOf(() => t.store.sessions.create('alice', { agent: '../x' }))).toBe(
        'invalid-argument',
      );
    });
  });

  describe('cancel requests', () => {
    it("reach the lease's holder in another store, and end with that lease", async () => {
      const s = await t.store.sessions.create('alice');
      expect(await t.store.leases.requestCancel(s.id)).toBeUndefined();
      const worker = await t.env.open();
      const lease = await worker.leases.acquire(s.id);
      expect(await lease.cancelRequested()).toBe(false);
      const asked = await t.store.leases.requestCancel(s.id);
      expect(asked).toMatchObject({ owner: lease.holder.owner, pid: process.pid });
      expect(await lease.cancelRequested()).toBe(true);
      await lease.release();
      expect(await lease.cancelRequested()).toBe(false);
      // The next holder starts without a request, even the same store.
      const again = await worker.leases.acquire(s.id);
      expect(await again.cancelRequested()).toBe(false);
      await again.release();
      expect(await codeOf(() => t.store.leases.requestCancel('bad'))).toBe('invalid-id');
    });
  });
});
