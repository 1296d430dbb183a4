import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

/** The agents and skills that ship: the reviewer names filesystem, git-workflow and shell, all off by default. */
const SHIPPED = {
  BIRDIE_BUNDLED_AGENTS: join(CLI_ROOT, 'agents'),
  BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills'),
};

const GAP =
  'agent reviewer: its skills filesystem, git-workflow, shell are not enabled in this session, so it lacks the tools read_file, list_dir, search_files, run_bash';

describe('birdie run --agent whose skills are off in the session', { timeout: 60_000 }, () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await sandbox({ ...scripted('repl.json'), ...SHIPPED });
  });
  afterEach(async () => {
    await box.cleanup();
  });
  const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

  it("says on stderr which of the agent's skills and tools are missing, and the flags that enable them", async () => {
    const off = await cli(['run', '--agent', 'reviewer', 'hello']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain(
      `birdie: ${GAP}. Enable them with --enable filesystem --enable git-workflow --enable shell (for every session: birdie config set skills.enable …)`,
    );
    const some = await cli(['run', '--agent', 'reviewer', '--enable', 'filesystem', 'hello']);
    expect(some.stderr).toContain(
      'birdie: agent reviewer: its skills git-workflow, shell are not enabled in this session, so it lacks the tool run_bash. Enable them with --enable git-workflow --enable shell',
    );
    const all = await cli([
      'run',
      ...['--agent', 'reviewer', '--enable', 'filesystem', '--enable', 'git-workflow', '--enable', 'shell'],
      'hello',
    ]);
    expect(all.stderr).not.toContain('agent reviewer:');
  });
});

describe('the REPL with --agent whose skills are off (compiled CLI in a terminal)', {
  timeout: 90_000,
}, () => {
  const repl = useReplSandbox({ ...scripted('repl.json'), ...SHIPPED });

  it('says so before the first answer and in /info, with the /skill commands; enabling them clears it', async () => {
    const t = repl.start(['--agent', 'reviewer']);
    await t.expect('/help for commands');
    await t.submit('hello');
    await t.expect(
      `${GAP}. Enable them with /skill enable filesystem, /skill enable git-workflow, /skill enable shell`,
    );
    await t.expect('Plain answer.');
    await t.submit('/info');
    await t.expect(
      /agent\s+reviewer: skills filesystem, git-workflow, shell not enabled \(missing tools: read_file, list_dir, search_files, run_bash\)/,
    );
    for (const name of ['filesystem', 'git-workflow', 'shell']) {
      await t.submit(`/skill enable ${name}`);
      await t.expect(`${name} enabled for session`);
    }
    await t.submit('/info');
    await t.expect(/agent\s+reviewer: its skills and tools are all enabled/);
    await t.prompt();
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });
});
