import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

it('the quickstart runtime answers every documented endpoint: /v1/skills and /v1/agents too (runs the built package)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [here('../examples/quickstart.mjs')]);
  expect(stdout).toContain('skills 200 {"skills":[]}');
  expect(stdout).toContain('agents 200 {"agents":[]}');
});

it("the README's example runtime implements every required ServeRuntime member", async () => {
  const readme = await readFile(here('../README.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Example')))?.[1] ?? '';
  for (const member of ['skills:', 'agents:', 'setSkills', 'createSession', 'history', 'runTurn'])
    expect(code).toContain(member);
});
