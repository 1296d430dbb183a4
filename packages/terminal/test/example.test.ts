import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const exec = promisify(execFile);

/** The README's first fenced block of `lang` after its `## Example` heading. */
function block(readme: string, lang: string): string {
  const section = readme.slice(readme.indexOf('\n## Example\n'));
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``).exec(section);
  if (!match) throw new Error(`no \`\`\`${lang} block under ## Example`);
  return match[1]!;
}

describe('the README example', () => {
  it('is examples/print-turn.mjs, and prints what the README shows (the escape sequence in a token dropped)', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const file = join(root, 'examples', 'print-turn.mjs');
    expect(block(readme, 'js')).toBe((await readFile(file, 'utf8')).trimEnd());
    const { stdout, stderr } = await exec(process.execPath, [file], { cwd: root });
    expect(stderr).toBe('');
    expect(stdout.trimEnd()).toBe(block(readme, 'text'));
    expect(stdout).not.toContain('\x1b');
    expect(stdout).not.toContain('pwned');
  });
});
