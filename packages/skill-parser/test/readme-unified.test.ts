import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** The fenced blocks from the README's "In a unified pipeline" heading on, in order. */
async function sectionBlocks(): Promise<string[]> {
  const readme = await readFile(`${root}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('\n## In a unified pipeline\n'));
  return [...section.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

it("the README's remark-lint example is examples/lint-skill.mjs, and prints what the README shows", async () => {
  const [code, output] = await sectionBlocks();
  const example = await readFile(`${root}examples/lint-skill.mjs`, 'utf8');
  // The example file's first line is a comment the README leaves out.
  expect(code).toBe(example.slice(example.indexOf('\n') + 1));
  // Run as a consumer would: through the package's own export (its dist, built before the tests).
  const { stdout, stderr } = await exec(process.execPath, ['examples/lint-skill.mjs'], { cwd: root });
  expect(stderr).toBe('');
  expect(stdout).toBe(output);
});
