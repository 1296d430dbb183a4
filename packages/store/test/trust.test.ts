import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore as Store, StoreError } from '../src/index.js';
import { tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: Store;
beforeEach(async () => {
  home = tempHome();
  store = openStore({ home: home.dir });
});
afterEach(async () => {
  await store.close();
  home.cleanup();
});

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return (error as StoreError).code;
  }
  return undefined;
}

describe('workspace trust (issue 13)', () => {
  it('remembers one decision per real folder, replaced by the next, listed by folder, revocable', async () => {
    expect(await store.trust.get('/work/project')).toBeUndefined();
    await store.trust.set('/work/project', { digest: 'sha256:aaa', decision: 'trusted' });
    await store.trust.set('/work/another', { digest: 'sha256:bbb', decision: 'refused' });
    const first = (await store.trust.get('/work/project'))!;
    expect(first).toMatchObject({ dir: '/work/project', digest: 'sha256:aaa', decision: 'trusted' });
    expect(first.at).toBeInstanceOf(Date);
    await store.trust.set('/work/project', { digest: 'sha256:ccc', decision: 'refused' });
    expect((await store.trust.list()).map((r) => [r.dir, r.digest, r.decision])).toEqual([
      ['/work/another', 'sha256:bbb', 'refused'],
      ['/work/project', 'sha256:ccc', 'refused'],
    ]);
    expect(await store.trust.revoke('/work/project')).toBe(true);
    expect(await store.trust.revoke('/work/project')).toBe(false);
    expect(await store.trust.get('/work/project')).toBeUndefined();

    // Survives reopening (another process sees the same answers).
    await store.close();
    store = openStore({ home: home.dir });
    expect((await store.trust.get('/work/another'))?.digest).toBe('sha256:bbb');
  });

  it.each(['relative/dir', '', 'a\0b', '/ok\0/x'])('refuses the folder %j', async (dir) => {
    expect(await codeOf(() => store.trust.get(dir))).toBe('invalid-argument');
    expect(await codeOf(() => store.trust.set(dir, { digest: 'd', decision: 'trusted' }))).toBe(
      'invalid-argument',
    );
  });

  it('validates the digest and the decision', async () => {
    expect(await codeOf(() => store.trust.set('/x', { digest: '', decision: 'trusted' }))).toBe(
      'invalid-argument',
    );
    expect(await codeOf(() => store.trust.set('/x', { digest: 'd', decision: 'maybe' as never }))).toBe(
      'invalid-argument',
    );
  });
});

describe('grant sources (issue 13)', () => {
  it('are stored and returned as given; grants saved without them read without them', async () => {
    const s = await store.sessions.create('alice');
    await store.grants.set(s.id, 'alice', { enabled: ['filesystem'], disabled: [] });
    expect(await store.grants.get(s.id, 'alice')).toEqual({ enabled: ['filesystem'], disabled: [] });
    const sources = {
      filesystem: 'bundled:/opt/birdie/skills/filesystem/SKILL.md',
      web: 'user:~/.birdie/skills/web',
    };
    await store.grants.set(s.id, 'alice', { enabled: ['filesystem', 'web'], disabled: [], sources });
    expect(await store.grants.get(s.id, 'alice')).toEqual({
      enabled: ['filesystem', 'web'],
      disabled: [],
      sources,
    });
    // A key that is special on plain objects stays data.
    await store.grants.set(s.id, 'alice', {
      enabled: [],
      disabled: [],
      sources: JSON.parse('{"__proto__":"x"}'),
    });
    const got = await store.grants.get(s.id, 'alice');
    expect(Object.hasOwn(got.sources!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(got.sources)).toBe(Object.prototype);
    expect(
      await codeOf(() =>
        store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: { a: 1 as never } }),
      ),
    ).toBe('invalid-argument');
    expect(
      await codeOf(() =>
        store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: [] as never }),
      ),
    ).toBe('invalid-argument');
  });
});
