import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simpleCommands } from '../src/bash-simple-commands.js';
import { checkEntrypoint, isEntrypointError, resolveEntrypoint } from '../src/index.js';
import { type TraceShim, traceShim, unseenCommands } from './bash-trace.js';
import { budgetFor, inBatches, tempDir } from './helpers.js';
import { templatesOfTests } from './test-templates.js';

/**
 * The differential test over the `bash:` templates of this folder's tests (the grid's own runs are checked in
 * template-grid.test.ts): each one that loads runs through the real entrypoint under bash's execution trace, and
 * every simple command the template's shell ran must be one the analysis lists (`simpleCommands`).
 */

/** Fewer values than the grid: these templates are many, and a few minutes of a loaded 2-core machine is the budget. */
const VALUES = ['$(touch PWNED)', 'a\ntouch PWNED\n', '*', "it's x[$(touch PWNED)]"];
const TEMPLATES = templatesOfTests(['template-grid.test.ts', 'bash-differential.test.ts']);

let dir: string;
let shim: TraceShim;

beforeAll(async () => {
  dir = await tempDir('birdie-differential-');
  shim = await traceShim(dir);
});

describe(`the differential test over ${TEMPLATES.length} templates of packages/entrypoints/test (real bash, xtrace)`, () => {
  it('would notice a command the analysis did not see: naive substitution runs `touch`', async () => {
    const trace = join(dir, 'control-trace');
    await new Promise<void>((resolve) => {
      const child = spawn('bash', ['-c', 'echo $(touch PWNED)'], {
        cwd: dir,
        env: shim.env(trace),
        stdio: 'ignore',
      });
      child.on('close', () => resolve());
    });
    const { unseen } = unseenCommands(simpleCommands('echo {v}'), await shim.read(trace));
    expect(unseen).toContainEqual(['touch', 'PWNED']);
  });

  it("every command the template's own shell ran is one the analysis lists", {
    timeout: budgetFor(TEMPLATES.length * VALUES.length, 400),
  }, async () => {
    const unseen: string[] = [];
    let loaded = 0;
    let runs = 0;
    let index = 0;
    for (const template of TEMPLATES) {
      if (checkEntrypoint(`bash:${template}`, { skillDir: dir }).length > 0) continue;
      loaded += 1;
      const tool = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
      const commands = simpleCommands(template);
      await inBatches(VALUES, 6, async (v) => {
        const k = index++;
        const work = join(dir, `run-${k}`);
        const trace = join(dir, `trace-${k}`);
        await mkdir(work);
        const args = Object.fromEntries(tool.placeholders.map((name) => [name, v]));
        try {
          await tool.run(args, { cwd: work, env: shim.env(trace), timeoutMs: 5_000, maxOutputBytes: 4096 });
        } catch (error) {
          if (!isEntrypointError(error)) throw error;
        }
        const seen = unseenCommands(commands, await shim.read(trace));
        if (seen.traced > 0) runs += 1;
        for (const argv of seen.unseen)
          unseen.push(`${template}  ⟵  ${JSON.stringify(v)} ran ${JSON.stringify(argv)}`);
      });
    }
    console.info(
      `differential over test/: ${TEMPLATES.length} templates, ${loaded} load, ${runs} traced runs, ${unseen.length} unseen commands`,
    );
    expect(loaded).toBeGreaterThan(20);
    expect(unseen).toEqual([]);
  });
});
