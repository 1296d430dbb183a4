import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

// The bundled filesystem skill, in place, as birdie's own (in-process) tools.
const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

const repl = useReplSandbox(scripted('edit-file.json'));
const vars = () => readFile(join(repl.box.cwd, 'vars.py'), 'utf8');

beforeEach(async () => {
  await writeFile(join(repl.box.cwd, 'vars.py'), 'a = 1\nb = 1\nc = 1\n');
});

describe('edit_file in the REPL (real terminal)', { timeout: 90_000 }, () => {
  it('shows the diff of the edit in the approval question, and refuses an ambiguous match leaving the file alone', async () => {
    const t = repl.start(['--enable', 'filesystem'], { env: { BIRDIE_BUNDLED_SKILLS: BUNDLED } });
    await t.expect('/help for commands');
    await t.submit('change b');
    await t.expect('edit_file (filesystem) needs approval');
    await t.expect('+++ vars.py');
    await t.expect(/│ {2}a = 1\n│ -b = 1\n│ \+b = 2\n│ {2}c = 1/);
    expect(await vars()).toBe('a = 1\nb = 1\nc = 1\n');
    await t.approvalReady();
    t.write('y');
    await t.expect('Changed b.');
    expect(await vars()).toBe('a = 1\nb = 2\nc = 1\n');

    const mark = t.mark;
    await t.submit('change the ones');
    await t.expect('edit_file (filesystem) needs approval');
    // The preview runs the same replacement as the tool: the question says why it would fail.
    await t.expect(/preview failed: .*occurs 2 times in "vars\.py" \(lines 1, 3\)/s);
    await t.approvalReady();
    t.write('y');
    await t.expect('That did not work.');
    expect(t.text.slice(mark)).toMatch(/the file was not changed/);
    expect(await vars()).toBe('a = 1\nb = 2\nc = 1\n');
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
  });
});
