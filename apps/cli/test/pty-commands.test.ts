import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

/**
 * The commands of the REPL issue that scripts mostly run in pipes (tested there too), run here in a real terminal:
 * a person types them, and a terminal must not change what they do.
 */

const repl = useReplSandbox(scripted('repl.json'));

/**
 * The JSON events among what a terminal showed (stdout and stderr share it), in order; the terminal's own echo of
 * Ctrl+C (`^C`) may stand before one on its line.
 */
function events(text: string): Array<Record<string, unknown> & { type: string }> {
  return text
    .split('\n')
    .filter((line) => line.includes('{"type":'))
    .map((line) => JSON.parse(line.slice(line.indexOf('{"type":'))));
}

describe('commands in a real terminal (compiled CLI)', { timeout: 60_000 }, () => {
  it('birdie run --json: a refused call never starts, one done agreeing with the result, exit 1', async () => {
    const t = repl.start(['run', 'touch it', '--json', '--skills-dir', TEST_SKILLS]);
    expect(await t.exited).toBe(1);
    const all = events(t.text);
    const refused = all.find((e) => e.type === 'approval-refused');
    expect(refused).toMatchObject({ tool: 'run_command' });
    expect(all.filter((e) => e.type === 'tool-start' && e.id === refused?.id)).toEqual([]);
    expect(all.filter((e) => e.type === 'done')).toEqual([{ type: 'done', status: 'rejected' }]);
    expect(all.at(-1)).toMatchObject({ type: 'result', status: 'rejected' });
    await expect(stat(join(repl.box.cwd, 'approved.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('birdie run --json, Ctrl+C while a tool runs: one done, the result agreeing with it, exit 1', async () => {
    const t = repl.start([
      'run',
      'please sleep',
      '--json',
      '--skills-dir',
      TEST_SKILLS,
      '--approval',
      'never',
    ]);
    await t.expect('"type":"tool-start"');
    t.write('\x03');
    expect(await t.exited).toBe(1);
    const all = events(t.text);
    const done = all.filter((e) => e.type === 'done');
    expect(done).toHaveLength(1);
    expect(all.at(-1)).toMatchObject({ type: 'result', status: done[0]?.status });
  });

  it('birdie -p "prompt" is birdie run: the answer, no REPL, exit 0', async () => {
    const t = repl.start(['-p', 'please shout', '--skills-dir', TEST_SKILLS, '--enable', 'echoer']);
    expect(await t.exited).toBe(0);
    expect(t.text).toContain('I shouted it for you.');
    expect(t.text).not.toContain('/help for commands');
  });

  it('skills --help and sessions --help list every subcommand of their group', async () => {
    for (const [group, subcommands] of [
      ['skills', ['list', 'check', 'new']],
      ['sessions', ['list', 'show', 'rename', 'delete', 'repair']],
    ] as const) {
      const t = repl.start([group, '--help']);
      expect(await t.exited, group).toBe(0);
      for (const sub of subcommands)
        expect(t.text, `${group} --help`).toMatch(new RegExp(`birdie ${group} ${sub}\\b`));
    }
  });
});
