import { styleText } from 'node:util';
import { describe, expect, it } from 'vitest';
import { visible } from './terminal-text.js';
import { boxLines } from './approval-box.js';
import { changeLines } from './change-view.js';

const plain = (_format: unknown, text: string) => text;
const colour = ((format: Parameters<typeof styleText>[0], text: string) => styleText(format, text)) as never;
const texts = (lines: Array<{ text: string }>) => lines.map((l) => l.text);

describe('changeLines', () => {
  it('is a unified diff of the file before and after, toned green for additions and red for removals', () => {
    const lines = changeLines({
      changes: [{ kind: 'file', path: 'notes.txt', before: 'one\ntwo\nthree\n', after: 'one\n2\nthree\n' }],
    });
    expect(texts(lines)).toEqual([
      '--- notes.txt',
      '+++ notes.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+2',
      ' three',
    ]);
    expect(lines.find((l) => l.text === '-two')?.tone).toBe('red');
    expect(lines.find((l) => l.text === '+2')?.tone).toBe('green');
  });

  it('shows a new file as all additions, a folder as one line, and what it cannot show', () => {
    expect(
      texts(
        changeLines({
          changes: [
            { kind: 'file', path: 'new.md', before: null, after: '# Title\nbody' },
            { kind: 'folder', path: 'src/lib' },
            { kind: 'file', path: 'big.log', note: '70000 bytes, too large to show' },
          ],
        }),
      ),
    ).toEqual([
      '--- /dev/null',
      '+++ new.md (new file)',
      '@@ -0,0 +1,2 @@',
      '+# Title',
      '+body',
      '\\ No newline at end of file',
      '+ new folder src/lib/',
      'big.log: 70000 bytes, too large to show',
    ]);
    expect(texts(changeLines({ error: 'Error (outside-root): Refused' }))).toEqual([
      'preview failed: Error (outside-root): Refused',
    ]);
  });

  it('cuts a long diff to the limit and counts the rest', () => {
    const after = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const lines = texts(changeLines({ changes: [{ kind: 'file', path: 'a', before: null, after }] }, 10));
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('… 94 more lines of changes');
  });

  it('never passes a control character of the file to the terminal', () => {
    const lines = texts(
      changeLines({
        changes: [{ kind: 'file', path: 'x\x1b[2J', before: 'a\n', after: 'a\n\x1b]0;pwned\x07\rb\tc\n' }],
      }),
    );
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(lines).toContain('+␛]0;pwned␇␍b␉c');
    expect(visible('\u009b31m')).toBe('\ufffd31m');
  });
});

describe('boxLines', () => {
  const box = {
    title: 'write_file (filesystem) needs approval',
    lines: [{ text: 'x'.repeat(100) }, { text: '+added', tone: 'green' as const }],
  };

  it('fits every line in the width it is drawn at, ruling the title to that width', () => {
    for (const width of [40, 80, 120]) {
      const lines = boxLines(box, plain as never, width, 50);
      for (const line of lines) expect(line.length).toBeLessThan(width);
      expect(lines[0]).toHaveLength(width - 1);
      expect(
        lines
          .filter((l) => l.startsWith('│ x'))
          .map((l) => l.slice(2))
          .join(''),
      ).toBe('x'.repeat(100));
    }
  });

  it('colours on a terminal that takes colours and counts the lines past the limit', () => {
    const lines = boxLines(box, colour, 40, 3);
    expect(lines.some((l) => l.includes(styleText('green', '+added')))).toBe(false);
    expect(lines.at(-2)).toContain('more lines');
    expect(boxLines(box, colour, 200, 10).some((l) => l.includes(styleText('green', '+added')))).toBe(true);
  });
});

describe('boxLines wrapping', () => {
  it('breaks prose after a space, and a long word at the width', () => {
    const lines = boxLines(
      {
        title: 't',
        lines: [{ text: 'Make a folder, including any missing parent folders.' }, { text: 'x'.repeat(30) }],
      },
      plain as never,
      24,
      50,
    );
    expect(lines.slice(1, -1)).toEqual([
      '│ Make a folder,',
      '│ including any missing',
      '│ parent folders.',
      `│ ${'x'.repeat(21)}`,
      `│ ${'x'.repeat(9)}`,
    ]);
  });
});
