import { describe, expect, it } from 'vitest';
import { limitsLine, serveNotes } from '../src/serve-notes.js';

/** What `serveNotes` reads of a serve runtime: its store, settings, approval mode and isolation. */
function setup(store: { kind: string; location: string }, isolation: Record<string, unknown>) {
  const settings = { serve: { limits: { concurrent_turns: 2 }, sandbox: { network: false } } };
  return { rt: { store, config: { settings } }, approval: 'ask', isolation } as never;
}

describe("a server's start-up notes", () => {
  it('says where data and tools live, and nothing to worry about on loopback with SQLite', () => {
    const notes = serveNotes(
      setup(
        { kind: 'sqlite', location: '/home/op/.birdie/birdie.db' },
        {
          workspaces: { root: '/srv/ws' },
          defaultRoot: true,
          shellTools: ['run_bash'],
          sandboxVersion: 'bubblewrap 0.8.0',
        },
      ),
      { host: '127.0.0.1' },
    );
    expect(notes).toEqual([
      'store sqlite /home/op/.birdie/birdie.db; approval ask; per user: 2 concurrent turn(s); tokens: birdie tokens create --user NAME',
      'workspaces in /srv/ws (one per user); shell and Python tools sandboxed (bubblewrap 0.8.0), network off',
    ]);
  });

  it('warns about listeners other machines reach and workspaces other workers cannot see', () => {
    const notes = serveNotes(
      setup(
        { kind: 'postgres', location: 'db/birdie' },
        { workspaces: { root: '/home/op/.birdie/workspaces' }, defaultRoot: true, shellTools: [] },
      ),
      { host: '0.0.0.0', metricsHost: '0.0.0.0' },
    );
    expect(notes[0]).toMatch(/^the metrics listener on 0\.0\.0\.0 needs no token/);
    expect(notes[1]).toMatch(/^listening on 0\.0\.0\.0, not only this machine/);
    expect(notes[3]).toBe(
      'workspaces in /home/op/.birdie/workspaces (one per user); no shell or Python tools',
    );
    expect(notes[4]).toMatch(/^the workspaces are in this worker's own folder/);
    expect(limitsLine({})).toBe('no per-user turn limits');
  });
});
