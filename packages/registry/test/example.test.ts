import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

it('prints exactly the output the README shows (runs the built package)', async () => {
  const { stdout } = await run(process.execPath, [here('../examples/basic.mjs')]);
  const readme = await readFile(here('../README.md'), 'utf8');
  const shown = /Its real output:\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(shown).toBeDefined();
  expect(stdout).toBe(shown);
});

it('prints exactly the agents output the README shows', async () => {
  const { stdout } = await run(process.execPath, [here('../examples/agents.mjs')]);
  const readme = await readFile(here('../README.md'), 'utf8');
  const shown = /workspace is trusted\. Its real output:\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(shown).toBeDefined();
  expect(stdout).toBe(shown);
});
