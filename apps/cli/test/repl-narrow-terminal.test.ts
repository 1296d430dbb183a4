import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('repl.json'));

/** Lets the prompt's redraw after a key reach the screen (there is no text to wait for when a menu only changes). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

// Reported at 80 × 24 and 60 × 30: the REPL's banner, its status line and the `/` menu were written as if the terminal
// were wide, so the terminal broke them at its edge (mid-word, mid-number) and the menu ran off the top of the screen.
describe('the REPL in a narrow terminal (compiled CLI, real terminal)', { timeout: 60_000 }, () => {
  for (const [cols, rows] of [
    [60, 30],
    [80, 24],
    [40, 12],
  ] as const) {
    it(`${cols} × ${rows}: the banner, the status line, the / menu and /help fit, nothing is broken at the edge`, async () => {
      // An agent named in the status line makes it longer still, as a user's own agents do.
      await mkdir(join(repl.box.home, 'agents'), { recursive: true });
      await writeFile(
        join(repl.box.home, 'agents', 'helper-with-a-long-name.md'),
        '---\nname: helper-with-a-long-name\ndescription: Answers questions.\n---\n\nAnswer briefly.\n',
      );
      const t = repl.start(['--agent', 'helper-with-a-long-name'], { cols, rows });
      await t.expect('/help');
      await t.submit('hello');
      await t.expect('Plain answer.');
      await t.expect(/ctx:? \d+/);
      await t.prompt();
      const screen = await t.screen();
      // The status line: one row, naming the model and the context at least.
      const status = screen.split('\n').find((line) => line.includes('scripted ·'));
      expect(status, screen).toBeDefined();
      expect(status).toMatch(/ctx/);
      expect(await t.wrappedRows(), screen).toEqual([]);

      t.write('/');
      await t.expect('/remember');
      await settle();
      const shown = await t.viewport();
      // The prompt is still on the screen with the menu under it from its first command, none wrapped.
      const at = shown.findIndex((row) => row.startsWith('› /'));
      expect(at, shown.join('\n')).toBeGreaterThanOrEqual(0);
      expect(shown[at + 1]).toMatch(/^ {2}\/help\b/);
      const menu = shown.slice(at + 1).filter((row) => row.trim() !== '');
      expect(await t.wrappedRows(), shown.join('\n')).toEqual([]);
      // What does not fit is counted, so the user knows to type on: in 12 rows, the prompt, 9 commands and the count.
      const listed = menu.filter((row) => row.trimStart().startsWith('/')).length;
      if (rows === 12) {
        expect(menu.at(-1)).toMatch(/^ {2}… \d+ more: type to narrow$/);
        expect(listed).toBe(rows - 3);
      } else expect(menu.every((row) => row.trimStart().startsWith('/'))).toBe(true);

      // Typing narrows the menu; the command chosen still runs.
      t.write('qu');
      await settle();
      const narrowed = (await t.viewport()).filter((row) => row.trimStart().startsWith('/'));
      expect(narrowed.some((row) => row.includes('/quit'))).toBe(true);
      expect(narrowed.some((row) => row.includes('/skill'))).toBe(false);
      // /help's table: its descriptions wrap within their column, between words.
      t.write('\x7f\x7f');
      await settle();
      t.write('help\r');
      await t.expect('Keys:');
      await t.prompt();
      expect(await t.wrappedRows(), await t.screen()).toEqual([]);
      t.write('/quit\r');
      expect(await t.exited).toBe(0);
    });
  }
});
