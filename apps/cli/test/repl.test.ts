import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { isAlive, readPidFile, survives } from './helpers/processes.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

const repl = useReplSandbox(scripted('repl.json'));

const start = (args: string[] = []) => repl.start(['--skills-dir', TEST_SKILLS, ...args]);

const STATUS = /scripted · scripted │ session: (\S+) │ ctx: \d+ tok(?: \(\d+%\))? │ spent: ↑(\d+) ↓(\d+) tok/;

describe('the REPL in a real terminal (compiled CLI)', { timeout: 60_000 }, () => {
  it('enables a skill, shows the tool call and the status line, disables it, quits, and resumes with history', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('/skill enable echoer');
    await t.expect('echoer enabled for session');
    await t.submit('/tool list');
    await t.expect(/shout\s+echoer/);

    await t.submit('please shout');
    await t.expect('⚙ shout (echoer) {"text":"hello birdie"}');
    await t.expect('│ HELLO BIRDIE');
    await t.expect(/└ ✓ shout · 1 line/);
    await t.expect('I shouted it for you.');
    const first = STATUS.exec(await t.expect(STATUS))!;
    const sessionId = first[1]!;

    await t.submit('/skill disable echoer');
    await t.expect('echoer disabled');
    await t.submit('/tool list');
    const tools = await t.expect(/slow_sleep[^\n]*\n/);
    expect(tools).not.toMatch(/shout\s+echoer/);
    await t.submit('shout again');
    await t.expect(/⚙ shout .*\n│ Error: tool "shout" is not available in this session/);
    await t.expect('The shout tool is gone.');
    const second = STATUS.exec(await t.expect(STATUS))!;
    expect(Number(second[2])).toBeGreaterThan(Number(first[2]));

    await t.submit('/quit');
    await t.expect(`resume with: birdie --session-id ${sessionId}`);
    expect(await t.exited).toBe(0);

    const again = start(['--session-id', sessionId]);
    await again.expect(`resuming ${sessionId} · 2 turns`);
    await again.expect('› please shout');
    await again.expect('I shouted it for you.');
    await again.expect('› shout again');
    await again.expect('The shout tool is gone.');
    // the conversation's size is known from the start, not 0 until the next call
    const resumed = new RegExp(
      `session: ${sessionId} │ ctx: (\\d+) tok │ spent: ↑${second[2]} ↓${second[3]} tok`,
    );
    expect(Number(resumed.exec(await again.expect(resumed))![1])).toBeGreaterThan(20);
    await again.submit('/skill list');
    await again.expect(/off\s+echoer\s+tool\s+shout\s+this session/);
    await again.submit('/session info');
    await again.expect(`session ${sessionId} · user tester · 2 turns · ↑${second[2]} ↓${second[3]} tok`);
    again.write('\x04');
    expect(await again.exited).toBe(0);
  });

  it('a line typed and sent before the REPL took the terminal is sent, not turned into a new line', async () => {
    const t = start();
    // Written at once: the terminal is still in cooked mode, which turns this Enter into a line feed (Ctrl+J).
    t.write('anything else\r');
    await t.expect('Plain answer.');
    const screen = await t.screen();
    expect(screen).toContain('› anything else');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('Ctrl+D deletes the character under the cursor on a non-empty line, and quits only on an empty one', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.prompt();
    t.write('hello world');
    await t.expect('hello world');
    t.write('\x1b[D'.repeat(5)); // the cursor onto the "w"
    await new Promise((r) => setTimeout(r, 50));
    t.write('\x04');
    await t.expect('hello orld');
    t.write(`${'\x1b[C'.repeat(4)}\x04`); // at the end of the line: nothing to delete, nothing happens
    await new Promise((r) => setTimeout(r, 100));
    t.write('\r');
    await t.expect('› hello orld');
    await t.expect('Plain answer.');
    await t.prompt();
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('two tools in one turn: each result is shown under the call it belongs to', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('/skill enable echoer');
    await t.expect('echoer enabled for session');
    await t.submit('shout twice');
    const screen = await t.expect('Both shouted.');
    // every result block is introduced by the header of its own call
    for (const [text, loud] of [
      ['first one', 'FIRST ONE'],
      ['second one', 'SECOND ONE'],
    ]) {
      const lines = screen.split('\n');
      const at = lines.findIndex((line) => line.includes(`│ ${loud}`));
      expect(at).toBeGreaterThan(0);
      expect(lines[at - 1]).toContain(`{"text":"${text}"}`);
    }
  });

  it('birdie "prompt" starts the REPL with that first message; the session goes on after it', async () => {
    const t = start(['please shout', '--enable', 'echoer']);
    await t.expect('› please shout');
    await t.expect('│ HELLO BIRDIE');
    await t.expect('I shouted it for you.');
    await t.submit('shout twice');
    await t.expect('Both shouted.');
    t.write('\x1b[A\x1b[A'); // history holds the first message too
    await t.expect('please shout');
    t.write('\x15'); // Ctrl+U empties the line, so Ctrl+D quits
    await t.expect('› █');
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('readline keys: Ctrl+W, Alt+Backspace, Ctrl+A, Ctrl+K, Alt+Left, Ctrl+U, Ctrl+E', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.prompt();
    const step = async (keys: string, screen: string) => {
      t.write(keys);
      await t.expect(screen);
    };
    await step('one two three', 'one two three█');
    await step('\x17', '› one two █'); // Ctrl+W
    await step('\x1b\x7f', '› one █'); // Alt+Backspace
    await step('alpha', '› one alpha█');
    await step('\x01\x0b', '› █'); // Ctrl+A, Ctrl+K
    await step('red green blue', 'red green blue█');
    await step('\x1b[1;3D\x0b', '› red green █'); // Alt+Left, Ctrl+K
    await step('\x1b[1;3D\x1b[1;3D\x15', '› red green '); // two words left is the start: Ctrl+U removes nothing
    await step('\x05\x15', '› █'); // Ctrl+E, Ctrl+U
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('input history survives a restart (per user, 0600), with Up and Ctrl+R reverse search', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('alpha one');
    await t.expect('Plain answer.');
    await t.submit('/memory');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    const file = join(repl.box.home, 'history', 'tester.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const again = start();
    await again.expect('/help for commands');
    await again.prompt();
    again.write('\x1b[A'); // Up: the newest input of the last session
    await again.expect('/quit');
    again.write('\x15\x12'); // Ctrl+U, Ctrl+R
    await again.expect("(reverse-i-search)`':");
    again.write('alp');
    await again.expect("(reverse-i-search)`alp': alpha one");
    again.write('zzz');
    await again.expect("(failing reverse-i-search)`alpzzz': alpha one");
    again.write('\x7f\x7f\x7f\r'); // back to a match, Enter sends it
    await again.expect('› alpha one');
    await again.expect('Plain answer.');
    await again.submit('/quit');
    expect(await again.exited).toBe(0);
  });

  it('Ctrl+C during a streamed answer keeps what was shown in the history, marked cancelled', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('tell a long story');
    await t.expect('Once upon');
    t.write('\x03');
    await t.expect('turn cancelled');
    const id = STATUS.exec(await t.expect(STATUS))![1]!;
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    const again = start(['--session-id', id]);
    await again.expect(`resuming ${id}`);
    await again.expect('› tell a long story');
    const kept = await again.expect('[cancelled]');
    expect(kept).toMatch(/Once upon[^\n]*\[cancelled\]/);
    expect(kept).not.toContain('beyond it');
    await again.prompt(); // Ctrl+D before the prompt reads keys is lost (it hung 1 run in 12, on main too)
    again.write('\x04');
    expect(await again.exited).toBe(0);
  });

  it('a rate-limited vendor shows the wait and the attempt where the spinner is, then the answer', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('busy vendor');
    await t.expect('scripted is rate limiting (HTTP 429): retrying in 1 s, attempt 1 of 2');
    await t.expect('Answered after the wait.');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('a long answer wraps between words at the terminal width, never inside one', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('a long line');
    const screen = await t.expect('word059');
    const lines = screen.slice(screen.indexOf('word000')).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    // 160 columns: every line ends at a word's end, and the words are all there in order
    for (const line of lines) expect(line.trimEnd()).toMatch(/^(word\d{3} ?)+$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(160);
    expect(lines.join(' ').split(/\s+/).filter(Boolean)).toEqual(
      Array.from({ length: 60 }, (_, i) => `word${String(i).padStart(3, '0')}`),
    );
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('typing / lists the commands with their descriptions; Tab completes commands, skills and session ids', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('/session info'); // the runtime is up: completion knows the skills and sessions
    const id = /session (\S+) · user tester/.exec(await t.expect(/session \S+ · user tester/))![1]!;
    await t.prompt();
    t.write('/');
    await t.expect(/\/skill enable\|disable NAME\s+change it for this session/);
    t.write('sk\t');
    await t.expect('› /skill █');
    t.write('en\t');
    await t.expect('› /skill enable █');
    t.write('ech\t');
    await t.expect('› /skill enable echoer █');
    t.write('\r');
    await t.expect('echoer enabled for session');
    await t.prompt();
    t.write(`/session switch ${id.slice(0, 8)}\t`);
    await t.expect(`› /session switch ${id} █`);
    t.write('\r');
    await t.expect(`switched to ${id}`);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('Ctrl+C during a long bash: tool cancels the turn and leaves no child process', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('please sleep');
    await t.expect('thinking… (Ctrl+C cancels)');
    await t.expect('⚙ slow_sleep');
    const pid = await readPidFile(join(repl.box.cwd, 'sleep.pid'));
    expect(isAlive(pid)).toBe(true);
    t.write('\x03');
    await t.expect('turn cancelled');
    await t.expect(STATUS);
    expect(await survives(pid)).toBe(false);
    // The session goes on after a cancelled turn.
    await t.submit('anything else');
    await t.expect('Plain answer.');
    await t.prompt();
    t.write('\x03');
    await t.expect('press Ctrl+C again to quit');
    t.write('\x03');
    expect(await t.exited).toBe(0);
  });

  it('SIGTERM during a long bash: tool ends the turn and its child process, then the REPL (exit 1)', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('please sleep');
    await t.expect('⚙ slow_sleep');
    const pid = await readPidFile(join(repl.box.cwd, 'sleep.pid'));
    expect(isAlive(pid)).toBe(true);
    process.kill(t.pid, 'SIGTERM');
    await t.expect('terminated by SIGTERM');
    expect(await t.exited).toBe(1);
    expect(await survives(pid)).toBe(false);
  });

  it('Ctrl+J inserts a newline, approvals ask, /remember and /memory work, unknown commands suggest', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.prompt();
    t.write('line one');
    t.write('\n');
    t.write('line two');
    await new Promise((r) => setTimeout(r, 50));
    t.write('\r');
    await t.expect('Got two lines.');

    // A bracketed paste keeps its line breaks (blank lines too) in one message; Enter then sends it.
    await t.prompt();
    t.write('\x1b[200~pasted A\rpasted B\r\rpasted C\x1b[201~');
    await new Promise((r) => setTimeout(r, 50));
    t.write('\r');
    await t.expect('Got the paste.');

    await t.submit('/skil list');
    await t.expect('Unknown command /skil. Did you mean "/skill"?');
    await t.submit('/remember the user likes tea');
    await t.expect('remembered as #1');
    await t.submit('/memory');
    await t.expect(/#1\s+\d{4}-\d{2}-\d{2}\s+the user likes tea/);
    // Up recalls earlier inputs: two steps back is /remember, one forward again is /memory.
    await t.prompt();
    t.write('\x1b[A');
    t.write('\x1b[A');
    t.write('\x1b[B');
    await t.expect('› /memory█');
    t.write('\r');
    await t.expect(/#1\s+\d{4}-\d{2}-\d{2}\s+the user likes tea/);
    await t.submit('/info');
    await t.expect(/user\s+tester/);
    await t.expect(/config\s+vendor ← env LLM_VENDOR/);
    await t.expect(/sandbox\s+tools that declare sandbox: true · (bubblewrap \d|unavailable: )/);
    await t.expect(/sandboxed\s+\(no enabled tool\)/);

    await t.submit('touch it');
    await t.expect('run_command (raw-shell) needs approval');
    await t.expect('[a] Approve every run_command command for this session');
    await t.approveForSession('run_command'); // a, Enter, then the tool's name to confirm
    await t.expect('Done with the file.');
    expect((await stat(join(repl.box.cwd, 'approved.txt'))).isFile()).toBe(true);
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
  });

  it('approval: edit the arguments, then reject with a message the model sees', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch edited');
    await t.expect('[e] Edit the arguments');
    await t.approvalReady();
    t.write('e'); // one key: edit
    await t.expect('Arguments (JSON object)');
    t.write('\x15'); // Ctrl+U clears the pre-filled arguments
    t.write('{"command":5}');
    t.write('\r');
    // checked against the tool's schema at the prompt: it asks again instead of sending a call that would fail
    await t.expect(/command: .*string/);
    t.write('\x15');
    t.write('{"command":"touch edited.txt"}');
    t.write('\r');
    // the call is shown as it runs: with the edited arguments
    await t.expect(/⚙ run_command[^\n]*\{"command":"touch edited.txt"\}/);
    await t.expect('[The user edited the arguments to {"command":"touch edited.txt"}]');
    expect(t.text).not.toContain("The user's edited arguments were invalid");
    await t.expect('Edited run done.');
    expect((await stat(join(repl.box.cwd, 'edited.txt'))).isFile()).toBe(true);
    await expect(stat(join(repl.box.cwd, 'original.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    await t.submit('touch rejected');
    await t.expect('[n] No, reject with a message for the model');
    await t.approvalReady();
    t.write('\x1b[A'); // arrows and Enter work too: nothing is selected at first, up once is the last choice, reject
    await t.expect('● [n]');
    t.write('\r');
    await t.expect('Message for the model');
    t.write('not in this folder');
    t.write('\r');
    await t.expect('The user rejected this call; it did not run. Their message: not in this folder');
    await t.expect('Understood, I left it.');
    await expect(stat(join(repl.box.cwd, 'rejected.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    // Ctrl+C at the approval question cancels the turn; nothing runs and the session goes on.
    await t.submit('touch cancelled');
    await t.expect('[y] Yes, approve once');
    t.write('\x03');
    await t.expect('turn cancelled');
    await t.submit('anything else');
    await t.expect('Plain answer.');
    await expect(stat(join(repl.box.cwd, 'cancelled.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    // Esc at the question rejects that call only: the turn goes on and the model hears of it.
    await t.submit('touch escaped');
    await t.expect('[y] Yes, approve once');
    t.write('\x1b');
    await t.expect('rejected (Esc)');
    await t.expect('The user rejected this call; it did not run.');
    // A call the user rejected never ran: it is marked rejected, never "failed".
    await t.expect(/✗ rejected[^\n]*run_command/);
    await t.expect('Skipped as you said.');
    expect(t.text).not.toMatch(/touch escaped[\s\S]*turn cancelled/);
    await expect(stat(join(repl.box.cwd, 'escaped.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('a turn cancelled at the approval question shows on resume that its call never ran', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('touch cancelled');
    await t.expect('[y] Yes, approve once');
    t.write('\x03');
    await t.expect('turn cancelled');
    const sessionId = STATUS.exec(await t.expect(STATUS))![1]!;
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    const again = start(['--session-id', sessionId]);
    await again.expect('› touch cancelled');
    const shown = await again.expect(STATUS);
    // Its call is shown with what became of it: not run, because the turn was cancelled at the question.
    expect(shown).toMatch(
      /⚙ run_command[^\n]*\n└ ✗ Not run: the user cancelled the turn at the approval question/,
    );
    await again.submit('/quit');
    expect(await again.exited).toBe(0);
    await expect(stat(join(repl.box.cwd, 'cancelled.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('two calls sharing an id: approving the first never runs the rejected second', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('two calls one id');
    await t.expect('echo harmless > harmless.txt');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    t.write('y'); // approve the first
    await t.expect('touch PWNED');
    await t.expect('[n] No, reject with a message for the model');
    await t.approvalReady();
    t.write('n'); // reject the second
    await t.expect('Message for the model');
    t.write('\r');
    await t.expect('Both calls answered.');
    expect((await stat(join(repl.box.cwd, 'harmless.txt'))).isFile()).toBe(true);
    await expect(stat(join(repl.box.cwd, 'PWNED'))).rejects.toMatchObject({ code: 'ENOENT' });
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('birdie resume picks a session by typing part of its title; birdie -c continues the latest', async () => {
    const run = async () => {
      const r = await runCli(['run', 'anything else'], { env: repl.box.env, cwd: repl.box.cwd });
      expect(r.code).toBe(0);
      return /session (\S+) ·/.exec(r.stderr)![1]!;
    };
    const older = await run();
    expect(
      (await runCli(['sessions', 'rename', older, 'owls and bats'], { env: repl.box.env, cwd: repl.box.cwd }))
        .code,
    ).toBe(0);
    const latest = await run();

    const picker = repl.start(['resume', '--skills-dir', TEST_SKILLS]);
    await picker.expect('Resume which session?');
    await picker.expect(/anything else · \d{4}-\d\d-\d\d \d\d:\d\d · 1 turn · \d+ tok/);
    await picker.expect('owls and bats');
    picker.write('owls');
    await picker.expect(/owls and bats[^\n]*\n/);
    picker.write('\r');
    await picker.expect(`resuming ${older} · 1 turn`);
    await picker.expect('› anything else');
    await picker.submit('/quit');
    expect(await picker.exited).toBe(0);

    const cont = start(['-c']);
    await cont.expect(`resuming ${latest} · 1 turn`);
    await cont.submit('/quit');
    expect(await cont.exited).toBe(0);
  });

  // Reported: after going back to an older session (`birdie resume`, `--session-id`) and talking in it, `birdie -c`
  // resumed the session made last, not the conversation the user had just had.
  it('birdie -c continues the session with the newest turn, not the one made last', async () => {
    const run = async (args: string[] = []) => {
      const r = await runCli(['run', ...args, 'anything else'], { env: repl.box.env, cwd: repl.box.cwd });
      expect(r.code, r.stderr).toBe(0);
      return /session (\S+) ·/.exec(r.stderr)![1]!;
    };
    const first = await run();
    const second = await run();
    expect(second).not.toBe(first);
    expect(await run(['--session-id', first])).toBe(first);

    const cont = start(['-c']);
    await cont.expect(`resuming ${first} · 2 turns`);
    await cont.submit('/quit');
    expect(await cont.exited).toBe(0);
  });

  // Reported (by hand, in a real terminal): with a `skills.enable` setting, opening the REPL and leaving it without a
  // message kept a 0-turn session (the setting's grants looked like the user's own), and `birdie -c` resumed it.
  it('birdie -c skips a session opened and left without a message, with skills.enable set', async () => {
    const cli = (args: string[]) => runCli(args, { env: repl.box.env, cwd: repl.box.cwd });
    expect((await cli(['config', 'set', 'skills.enable', 'echoer'])).code).toBe(0);
    const run = await cli(['run', '--skills-dir', TEST_SKILLS, 'anything else']);
    expect(run.code, run.stderr).toBe(0);
    const talked = /session (\S+) ·/.exec(run.stderr)![1]!;

    const left = start();
    await left.submit('/session info');
    const empty = /session (\S+) · user \S+ · 0 turns/.exec(
      await left.expect(/session \S+ · user \S+ · 0 turns/),
    )![1]!;
    expect(empty).not.toBe(talked);
    await left.submit('/quit');
    expect(await left.exited).toBe(0);
    const list = await cli(['sessions', 'list', '--json']);
    expect(list.stdout).toContain(talked);
    expect(list.stdout).not.toContain(empty);

    const cont = start(['-c']);
    await cont.expect(`resuming ${talked} · 1 turn`);
    await cont.submit('/quit');
    expect(await cont.exited).toBe(0);
  });

  // The grants a user gave in a session are theirs: an empty session they changed is kept.
  it('keeps a session left without a message when the user changed its skills', async () => {
    const cli = (args: string[]) => runCli(args, { env: repl.box.env, cwd: repl.box.cwd });
    expect((await cli(['config', 'set', 'skills.enable', 'echoer'])).code).toBe(0);
    const t = start();
    await t.submit('/skill disable echoer');
    await t.expect('echoer disabled');
    await t.submit('/session info');
    const id = /session (\S+) · user \S+ · 0 turns/.exec(
      await t.expect(/session \S+ · user \S+ · 0 turns/),
    )![1]!;
    await t.submit('/quit');
    await t.expect(`session ${id} saved`);
    expect(await t.exited).toBe(0);
    expect((await cli(['sessions', 'list', '--json'])).stdout).toContain(id);
  });
});
