import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('approval-question.json'));
const start = () => repl.start(['--skills-dir', TEST_SKILLS, '--enable', 'raw-shell']);
const exists = (name: string) =>
  stat(join(repl.box.cwd, name)).then(
    () => true,
    () => false,
  );

describe('the approval question does not take typed text as an answer (real terminal)', {
  timeout: 90_000,
}, () => {
  it('"wait, do not run it" typed at the question runs nothing; Enter sends it to the model as the rejection', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch typed');
    await t.expect('run_command (raw-shell) needs approval');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    t.write('wait, do not run it');
    // The text is shown as a message being written, not taken as keys: its `a` approves nothing.
    await t.expect('› wait, do not run it');
    expect(await exists('typed.txt')).toBe(false);
    t.write('\r');
    await t.expect('The user rejected this call; it did not run. Their message: wait, do not run it');
    await t.expect('Left it alone.');
    expect(await exists('typed.txt')).toBe(false);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('`a` only selects "every command for this session": Enter, then the tool name typed, approve it', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch all');
    await t.approvalReady();
    // Enter with nothing chosen does nothing.
    t.write('\r');
    await t.expect('Enter confirms a choice: pick one with its key or the arrows first');
    t.write('a');
    await t.expect('● [a] Approve every run_command command for this session');
    expect(await exists('all.txt')).toBe(false);
    t.write('\r');
    await t.expect('Type run_command to confirm');
    // Anything but the tool's name goes back to the question.
    t.write('yes\r');
    await t.expect('run_command (raw-shell) needs approval');
    await t.approvalReady();
    expect(await exists('all.txt')).toBe(false);
    t.write('a\r');
    await t.expect('Type run_command to confirm');
    t.write('run_command\r');
    await t.expect('Touched with your approval.');
    expect(await exists('all.txt')).toBe(true);
    await t.submit('touch more');
    await t.expect('Touched without asking.');
    expect(await exists('more.txt')).toBe(true);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('what is typed right after `n` starts the message for the model instead of being lost', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch refused');
    await t.approvalReady();
    t.write('ntoo risky');
    await t.expect('Message for the model');
    await t.expect('too risky');
    t.write('\r');
    await t.expect('The user rejected this call; it did not run. Their message: too risky');
    await t.expect('Refused, as you said.');
    expect(await exists('refused.txt')).toBe(false);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('`p` then Enter allows the command prefix shown, for the session: covered commands run, others still ask', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch prefix one');
    await t.expect('[p] Allow run_command(touch *) for this session (p, then Enter)');
    await t.approvalReady();
    t.write('p');
    await t.expect('● [p] Allow run_command(touch *)');
    expect(await exists('p1.txt')).toBe(false);
    t.write('\r');
    await t.expect('Touched the first.');
    expect(await exists('p1.txt')).toBe(true);
    const mark = t.mark;
    await t.submit('touch prefix two');
    await t.expect('Touched the second.');
    expect(t.text.slice(mark)).not.toContain('needs approval');
    expect(t.text.slice(mark)).toContain('run_command allowed by the rule run_command(touch *) (session)');
    expect(await exists('p2.txt')).toBe(true);
    // `/permissions` lists the rules in force with their sources: the session's one included.
    await t.submit('/permissions');
    await t.expect('allow  run_command(touch *)  session');
    // Not covered: asked again.
    await t.submit('remove it');
    await t.expect('run_command (raw-shell) needs approval');
    await t.approvalReady();
    t.write('n');
    await t.expect('Message for the model');
    t.write('\r');
    await t.expect('Not removed.');
    expect(await exists('p1.txt')).toBe(true);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });
});
