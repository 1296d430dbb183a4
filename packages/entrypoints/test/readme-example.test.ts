import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

it('the README example block is examples/basic.mjs, whose output it shows', async () => {
  const readme = await readFile(here('../README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Example')))?.[1];
  expect(block).toBe(await readFile(here('../examples/basic.mjs'), 'utf8'));
});
