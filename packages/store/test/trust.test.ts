import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store, StoreError } from '../src/index.js';
import { tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: Store;
beforeEach(() => {
  home = tempHome();
  store = openStore({ home: home.dir });
});
afterEach(() => {
  store.close();
  home.cleanup();
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return (error as StoreError).code;
  }
  return undefined;
}

describe('workspace trust (issue 13)', () => {
  it('remembers one decision per real folder, replaced by the next, listed by folder, revocable', () => {
    expect(store.trust.get('/work/project')).toBeUndefined();
    store.trust.set('/work/project', { digest: 'sha256:aaa', decision: 'trusted' });
    store.trust.set('/work/another', { digest: 'sha256:bbb', decision: 'refused' });
    const first = store.trust.get('/work/project')!;
    expect(first).toMatchObject({ dir: '/work/project', digest: 'sha256:aaa', decision: 'trusted' });
    expect(first.at).toBeInstanceOf(Date);
    store.trust.set('/work/project', { digest: 'sha256:ccc', decision: 'refused' });
    expect(store.trust.list().map((r) => [r.dir, r.digest, r.decision])).toEqual([
      ['/work/another', 'sha256:bbb', 'refused'],
      ['/work/project', 'sha256:ccc', 'refused'],
    ]);
    expect(store.trust.revoke('/work/project')).toBe(true);
    expect(store.trust.revoke('/work/project')).toBe(false);
    expect(store.trust.get('/work/project')).toBeUndefined();

    // Survives reopening (another process sees the same answers).
    store.close();
    store = openStore({ home: home.dir });
    expect(store.trust.get('/work/another')?.digest).toBe('sha256:bbb');
  });

  it.each(['relative/dir', '', 'a\0b', '/ok\0/x'])('refuses the folder %j', (dir) => {
    expect(codeOf(() => store.trust.get(dir))).toBe('invalid-argument');
    expect(codeOf(() => store.trust.set(dir, { digest: 'd', decision: 'trusted' }))).toBe('invalid-argument');
  });

  it('validates the digest and the decision', () => {
    expect(codeOf(() => store.trust.set('/x', { digest: '', decision: 'trusted' }))).toBe('invalid-argument');
    expect(codeOf(() => store.trust.set('/x', { digest: 'd', decision: 'maybe' as never }))).toBe(
      'invalid-argument',
    );
  });
});

describe('grant sources (issue 13)', () => {
  it('are stored and returned as given; grants saved without them read without them', () => {
    const s = store.sessions.create('alice');
    store.grants.set(s.id, 'alice', { enabled: ['filesystem'], disabled: [] });
    expect(store.grants.get(s.id, 'alice')).toEqual({ enabled: ['filesystem'], disabled: [] });
    const sources = {
      filesystem: 'bundled:/opt/birdie/skills/filesystem/SKILL.md',
      web: 'user:~/.birdie/skills/web',
    };
    store.grants.set(s.id, 'alice', { enabled: ['filesystem', 'web'], disabled: [], sources });
    expect(store.grants.get(s.id, 'alice')).toEqual({
      enabled: ['filesystem', 'web'],
      disabled: [],
      sources,
    });
    // A key that is special on plain objects stays data.
    store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: JSON.parse('{"__proto__":"x"}') });
    const got = store.grants.get(s.id, 'alice');
    expect(Object.hasOwn(got.sources!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(got.sources)).toBe(Object.prototype);
    expect(
      codeOf(() =>
        store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: { a: 1 as never } }),
      ),
    ).toBe('invalid-argument');
    expect(
      codeOf(() => store.grants.set(s.id, 'alice', { enabled: [], disabled: [], sources: [] as never })),
    ).toBe('invalid-argument');
  });
});
