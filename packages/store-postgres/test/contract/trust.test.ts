import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('workspace trust (issue 13)', () => {
    it('remembers one decision per real folder, replaced by the next, listed by folder, revocable', async () => {
      expect(await t.store.trust.get('/work/project')).toBeUndefined();
      await t.store.trust.set('/work/project', { digest: 'sha256:aaa', decision: 'trusted' });
      await t.store.trust.set('/work/another', { digest: 'sha256:bbb', decision: 'refused' });
      const first = (await t.store.trust.get('/work/project'))!;
      expect(first).toMatchObject({ dir: '/work/project', digest: 'sha256:aaa', decision: 'trusted' });
      expect(first.at).toBeInstanceOf(Date);
      await t.store.trust.set('/work/project', { digest: 'sha256:ccc', decision: 'refused' });
      expect((await t.store.trust.list()).map((r) => [r.dir, r.digest, r.decision])).toEqual([
        ['/work/another', 'sha256:bbb', 'refused'],
        ['/work/project', 'sha256:ccc', 'refused'],
      ]);
      expect(await t.store.trust.revoke('/work/project')).toBe(true);
      expect(await t.store.trust.revoke('/work/project')).toBe(false);
      expect(await t.store.trust.get('/work/project')).toBeUndefined();

      // Another store (another process) sees the same answers.
      const other = await t.env.open();
      expect((await other.trust.get('/work/another'))?.digest).toBe('sha256:bbb');
    });

    it.each(['relative/dir', '', 'a\0b', '/ok\0/x'])('refuses the folder %j', async (dir) => {
      expect(await codeOf(() => t.store.trust.get(dir))).toBe('invalid-argument');
      expect(await codeOf(() => t.store.trust.set(dir, { digest: 'd', decision: 'trusted' }))).toBe(
        'invalid-argument',
      );
    });

    it('validates the digest and the decision', async () => {
      expect(await codeOf(() => t.store.trust.set('/x', { digest: '', decision: 'trusted' }))).toBe(
        'invalid-argument',
      );
      expect(await codeOf(() => t.store.trust.set('/x', { digest: 'd', decision: 'maybe' as never }))).toBe(
        'invalid-argument',
      );
    });
  });

  describe('grant sources (issue 13)', () => {
    it('are stored and returned as given; grants saved without them read without them', async () => {
      const s = await t.store.sessions.create('alice');
      await t.store.grants.set(s.id, 'alice', { enabled: ['filesystem'], disabled: [] });
      expect(await t.store.grants.get(s.id, 'alice')).toEqual({ enabled: ['filesystem'], disabled: [] });
      const sources = {
        filesystem: 'bundled:/opt/birdie/skills/filesystem/SKILL.md',
        web: 'user:~/.birdie/skills/web',
      };
      await t.store.grants.set(s.id, 'alice', { enabled: ['filesystem', 'web'], disabled: [], sources });
      expect(await t.store.grants.get(s.id, 'alice')).toEqual({
        enabled: ['filesystem', 'web'],
        disabled: [],
        sources,
      });
      // A key that is special on plain objects stays data.
      await t.store.grants.set(s.id, 'alice', {
        enabled: [],
        disabled: [],
        sources: JSON.parse('{"__proto__":"x"}'),
      });
      const got = await t.store.grants.get(s.id, 'alice');
      expect(Object.hasOwn(got.sources!, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(got.sources)).toBe(Object.prototype);
      expect(
        await codeOf(() =>
          t.store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: { a: 1 as never } }),
        ),
      ).toBe('invalid-argument');
      expect(
        await codeOf(() =>
          t.store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: [] as never }),
        ),
      ).toBe('invalid-argument');
    });
  });
});
