import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted } from './helpers/env.js';
import { manyTools } from './helpers/many-tools.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('find-tools.json'));

describe('the approval question names a tool find_tools added (real terminal)', { timeout: 90_000 }, () => {
  it('asks about stock_quote with the "Added by find_tools" line, and runs it once approved', async () => {
    const skills = join(repl.box.dir.path, 'many-skills');
    await manyTools(skills);
    const t = repl.start(['--skills-dir', skills, '--approval', 'always']);
    await t.expect('/help for commands');
    await t.submit('what is the ACME share price?');
    await t.expect('stock_quote (markets) needs approval');
    await t.expect(
      'Added by find_tools: the model searched for this tool; it was not among those it was given.',
    );
    await t.approvalReady();
    t.write('y');
    await t.expect('ACME is up.');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });
});
