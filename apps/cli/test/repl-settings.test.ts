import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';
import { script } from './helpers/sessions.js';

// Issue 19, "Settings": user defaults that new sessions start with, and the config file the REPL was started with.

const repl = useReplSandbox();

const STATUS = /│ session: (\S+) │/;

/** A script where each "shout N" calls echoer's shout with N, then answers "N done". */
async function shoutScript(...words: string[]): Promise<NodeJS.ProcessEnv> {
  return script(
    repl.box.dir.path,
    'shouts',
    words.flatMap((word) => [
      { match: `shout ${word}`, tool_calls: [{ name: 'shout', args: { text: word } }] },
      { match: `shout ${word}`, text: `${word} done` },
    ]),
  );
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { env: { ...repl.box.env, ...env }, cwd: repl.box.cwd });

describe('settings in the REPL (compiled CLI, real terminal)', { timeout: 60_000 }, () => {
  it('skills.enable: a new session can use the skill, /new too; a resumed session where it was disabled stays so', async () => {
    const env = await shoutScript('one', 'two', 'three');
    // echoer is off by default: only the setting turns it on.
    expect(await cli(['config', 'set', 'skills.enable', 'echoer'], env)).toMatchObject({ code: 0 });
    const t = repl.start(['--skills-dir', TEST_SKILLS], { env });
    await t.expect('/help for commands');
    await t.submit('shout one');
    await t.expect('│ ONE');
    await t.expect('one done');
    const first = STATUS.exec(await t.expect(STATUS))![1]!;
    await t.submit('/skill disable echoer');
    await t.expect('echoer disabled');
    await t.submit('/info');
    await t.expect(`skills.enable=echoer ← file ${join(repl.box.home, 'config.json')}`);

    await t.submit('/new');
    await t.expect('new session');
    await t.submit('/skill list');
    await t.expect(/on\s+echoer\s+tool\s+shout/);
    await t.submit('shout two');
    await t.expect('│ TWO');
    await t.expect('two done');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);

    // Settings make new sessions; a resumed one keeps its own grants.
    const again = repl.start(['--skills-dir', TEST_SKILLS, '--session-id', first], { env });
    await again.expect(`resuming ${first}`);
    await again.submit('/skill list');
    await again.expect(/off\s+echoer\s+tool\s+shout\s+this session/);
    await again.submit('shout three');
    await again.expect('Error: tool "shout" is not available in this session');
    await again.submit('/quit');
    expect(await again.exited).toBe(0);
  });

  it('--enable/--disable win over the settings; an unknown name in the setting is a warning, not a failure', async () => {
    const env = await shoutScript('one');
    expect(await cli(['config', 'set', 'skills.enable', 'echoer,wordcount'], env)).toMatchObject({ code: 0 });
    // sleeper is on by default: the setting turns it off, and --enable turns it on again for this start.
    expect(await cli(['config', 'set', 'skills.disable', 'sleeper'], env)).toMatchObject({ code: 0 });
    const t = repl.start(['--skills-dir', TEST_SKILLS, '--disable', 'echoer', '--enable', 'sleeper'], {
      env,
    });
    await t.expect('/help for commands');
    await t.submit('/skill list');
    await t.expect(
      `setting skills.enable (file ${join(repl.box.home, 'config.json')}): no skill "wordcount", so it is not enabled. Did you mean "word-count"?`,
    );
    const list = await t.expect(/sleeper[^\n]*\n/);
    expect(list).toMatch(/off\s+echoer/);
    expect(list).toMatch(/on\s+sleeper/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('--config FILE: its settings make the new session, and /info and /config show and write that file', async () => {
    const env = await shoutScript('one');
    const team = join(repl.box.cwd, 'team.json');
    await writeFile(team, `${JSON.stringify({ settings: { skills: { enable: ['echoer'] } } })}\n`);
    const t = repl.start(['--skills-dir', TEST_SKILLS, '--config', 'team.json'], { env });
    await t.expect('/help for commands');
    await t.submit('shout one');
    await t.expect('│ ONE');
    await t.submit('/info');
    await t.expect(`skills.enable=echoer ← file ${team}`);
    await t.submit('/config set approval never');
    await t.expect(`approval = never (in ${team})`);
    await t.expect('saved: the next start uses it (/approval changes it now)');
    await t.submit('/config list');
    await t.expect(new RegExp(`approval\\s+never\\s+file ${team}`));
    // The skill lists are what /new makes sessions from: a change applies to the next /new at once.
    await t.submit('/config unset skills.enable');
    await t.expect('saved: new sessions start with it, /new included');
    await t.submit('/new');
    await t.expect('new session');
    await t.submit('/skill list');
    await t.expect(/off\s+echoer/);
    await t.submit('/config set skills.enable echoer');
    await t.submit('/new');
    await t.expect('new session');
    await t.submit('/skill list');
    await t.expect(/on\s+echoer/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    expect(JSON.parse(await readFile(team, 'utf8'))).toEqual({
      settings: { approval: 'never', skills: { enable: ['echoer'] } },
    });
    await expect(readFile(join(repl.box.home, 'config.json'), 'utf8')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
