import { describe, expect, it } from 'vitest';
import { skippedLine, workspaceContents } from '../src/workspace-summary.js';

/** A workspace's declarations with only what the summaries read. */
function workspace(
  path: string,
  counts: { skills?: number; agents?: number; memory?: number; commands?: number },
) {
  const many = (n = 0) => Array.from({ length: n }, () => ({}));
  return {
    path,
    skills: many(counts.skills),
    agents: many(counts.agents),
    memoryFiles: many(counts.memory),
    commands: many(counts.commands),
  } as never;
}

describe('what project folders hold, in words', () => {
  it('names the kinds of files a workspace holds', () => {
    expect(workspaceContents(workspace('/p', { skills: 2 }))).toBe('project skills');
    expect(workspaceContents(workspace('/p', { skills: 1, agents: 1, memory: 1 }))).toBe(
      'project skills and agents and memory files',
    );
    expect(workspaceContents(workspace('/p', { memory: 1, commands: 2 }))).toBe('memory files and commands');
    expect(workspaceContents({ ...(workspace('/p', {}) as object), settings: { path: 's' } } as never)).toBe(
      'settings',
    );
    expect(workspaceContents(workspace('/p', {}))).toBe('project files');
  });

  it('counts what was skipped in every untrusted folder, and says how to trust them', () => {
    expect(skippedLine([])).toBeUndefined();
    expect(
      skippedLine([workspace('/a', { skills: 1 }), workspace('/b', { skills: 1, agents: 1, memory: 1 })]),
    ).toBe(
      'birdie: skipped 2 skills, 1 agent and 1 memory file of the untrusted folder /a, /b: run `birdie trust` there to use them (or --trust-workspace for one run)',
    );
  });

  it("says a skipped settings file's ask and deny rules still apply", () => {
    const withSettings = { ...(workspace('/p', { skills: 1 }) as object), settings: { path: 's' } } as never;
    expect(skippedLine([withSettings])).toBe(
      "birdie: skipped 1 skill and the settings file of the untrusted folder /p: run `birdie trust` there to use them (or --trust-workspace for one run); the settings file's ask and deny rules apply all the same (they only narrow what runs), its allow rules only once trusted",
    );
  });
});
