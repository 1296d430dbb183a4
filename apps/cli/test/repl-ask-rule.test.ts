import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');
const repl = useReplSandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });

describe('an ask rule asks in the REPL whatever the batch approved for the session (real terminal)', {
  timeout: 90_000,
}, () => {
  it('"a" on a harmless write does not answer the same batch\'s write that `write_file(path=.github/**)` asks about', async () => {
    const box = repl.box;
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { permissions: { ask: ['write_file(path=.github/**)'] } } }),
    );
    await mkdir(join(box.cwd, '.github'));
    const script = join(box.dir.path, 'script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          {
            tool_calls: [
              { name: 'write_file', args: { path: 'notes.txt', content: 'n' } },
              { name: 'write_file', args: { path: '.github/ci.yml', content: 'x' } },
            ],
          },
          { text: 'Wrote what I could.' },
        ],
      }),
    );
    const t = repl.start(['--enable', 'filesystem'], {
      env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    });
    await t.expect('/help for commands');
    await t.submit('write both');
    await t.expect('write_file (filesystem) needs approval');
    await t.approveForSession();
    const mark = t.mark;
    // The second call is asked, not answered by the "a" just given.
    await t.expect(/write_file \(filesystem\) needs approval[\s\S]*\.github\/ci\.yml/);
    expect(t.text.slice(mark)).not.toContain('approved for this session');
    await t.approvalReady();
    t.write('n');
    await t.expect('Message for the model');
    t.write('\r');
    await t.expect('Wrote what I could.');
    expect(await readFile(join(box.cwd, 'notes.txt'), 'utf8')).toBe('n');
    expect(existsSync(join(box.cwd, '.github', 'ci.yml'))).toBe(false);
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
  });

  it("the question an ask rule makes offers no 'for this session' (no session approval answers such a call)", async () => {
    const box = repl.box;
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { permissions: { ask: ['write_file(path=.github/**)'] } } }),
    );
    await mkdir(join(box.cwd, '.github'), { recursive: true });
    const script = join(box.dir.path, 'script-one.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          { tool_calls: [{ name: 'write_file', args: { path: '.github/ci.yml', content: 'x' } }] },
          { text: 'Left it.' },
        ],
      }),
    );
    const t = repl.start(['--enable', 'filesystem'], {
      env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    });
    await t.expect('/help for commands');
    const mark = t.mark;
    await t.submit('write ci');
    await t.expect('write_file (filesystem) needs approval');
    await t.approvalReady();
    const question = t.text.slice(mark);
    expect(question).toContain('Yes, approve once');
    expect(question).not.toContain('for this session');
    t.write('n');
    await t.expect('Message for the model');
    t.write('\r');
    await t.expect('Left it.');
    expect(existsSync(join(box.cwd, '.github', 'ci.yml'))).toBe(false);
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
  });
});
