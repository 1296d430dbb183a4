import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT } from '../src/repl/input-history.js';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('keys.json'));

const start = (args: string[] = []) => repl.start(['--skills-dir', TEST_SKILLS, ...args]);

describe('REPL keys and conveniences in a real terminal (compiled CLI)', { timeout: 60_000 }, () => {
  it('Alt+B and Alt+F (and Alt+Right) move by words as in readline', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.prompt();
    const step = async (keys: string, screen: string) => {
      t.write(keys);
      await t.expect(screen);
    };
    await step('red green blue', 'red green blue█');
    await step('\x1bb\x1bbX', '› red Xgreen blue'); // Alt+B twice: the start of "green"
    await step('\x1bfY', '› red XgreenY blue'); // Alt+F: the end of that word
    await step('\x1bb\x1bb\x1bbZ', '› Zred XgreenY blue'); // back past the first word: the line's start
    await step('\x1b[1;3C\x1b[1;3C\x0b', '› Zred XgreenY█'); // Alt+Right twice, Ctrl+K
    await step('\x01\x1bf\x1bf\x1bf\x1bfW', '› Zred XgreenYW█'); // Alt+F past the last word: the line's end
    await step('\x15', '› █'); // Ctrl+U
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('Tab completes a tool or skill name in free text, and lists the names when they differ', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('/session info'); // the runtime is up: completion knows the skills and their tools
    await t.expect(/session \S+ · user tester/);
    await t.prompt();
    t.write('please use run_c\t');
    await t.expect('› please use run_command █');
    t.write('or sl\t');
    await t.expect(/› please use run_command or sl█\s+sleeper {2}slow_sleep\b/);
    t.write('o\t');
    await t.expect('› please use run_command or slow_sleep █');
    t.write('\x15\x04');
    expect(await t.exited).toBe(0);
  });

  it('the first prompt of a fresh REPL offers the / menu and Tab completion without any input sent first', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.prompt();
    // typed at once: the menu appears as soon as the runtime is up, with no further key
    t.write('/sk');
    await t.expect(/› \/sk█\s+\/skill list\s+skills and whether/, 30_000);
    t.write('ill en\t');
    await t.expect('› /skill enable █');
    t.write('\x15\x04');
    expect(await t.exited).toBe(0);
  });

  it('birdie -- "run" starts the REPL with "run" as its first message; birdie rnu says did you mean, options first too', async () => {
    const t = repl.start(['--', 'run']);
    await t.expect('› run');
    await t.expect('You said run.');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);

    const typo = repl.start(['rnu']);
    await typo.expect('unknown command "rnu". Did you mean "run"? To send it as a message: birdie -- "rnu"');
    expect(await typo.exited).toBe(2);
    // options first change nothing: a command's name or a near miss is not sent to the model unasked
    const late = start(['rnu']);
    await late.expect('unknown command "rnu". Did you mean "run"? To send it as a message, put -- before it');
    expect(await late.exited).toBe(2);
    const command = start(['run']);
    await command.expect(
      '"run" is a command: put it first (birdie run …), or to send it as a message, put -- before it',
    );
    expect(await command.exited).toBe(2);
    const message = start(['--', 'run']);
    await message.expect('You said run.');
    await message.submit('/quit');
    expect(await message.exited).toBe(0);
  });

  it('the input history file stays within its cap across restarts, and keeps the newest inputs', async () => {
    const file = join(repl.box.home, 'history', 'tester.jsonl');
    const cap = HISTORY_LIMIT * 1.2;
    const lines = async () => (await readFile(file, 'utf8')).trimEnd().split('\n');
    // a history one line short of the cap, as a long-used one is
    await mkdir(join(repl.box.home, 'history'), { recursive: true });
    await writeFile(
      file,
      Array.from({ length: cap - 1 }, (_, i) => `${JSON.stringify(`old ${i}`)}\n`).join(''),
      { mode: 0o600 },
    );
    for (const round of [1, 2, 3]) {
      const t = start();
      await t.expect('/help for commands');
      for (const n of [1, 2, 3]) {
        await t.submit(`/remember round ${round} input ${n}`);
        await t.expect('remembered as');
      }
      await t.submit('/quit');
      expect(await t.exited).toBe(0);
      expect((await lines()).length).toBeLessThanOrEqual(cap);
      expect((await lines()).at(-2)).toBe(JSON.stringify(`/remember round ${round} input 3`));
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
    // the next start offers the newest inputs, the last session's first
    const again = start();
    await again.expect('/help for commands');
    await again.prompt();
    again.write('\x1b[A\x1b[A');
    await again.expect('› /remember round 3 input 3');
    again.write('\x15\x04');
    expect(await again.exited).toBe(0);
  });
});
