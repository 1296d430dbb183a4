import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the "Serve a custom skill over HTTP" follow-up sends the turn to the session the first command created', async () => {
  const readme = await readFile(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('### Serve a custom skill over HTTP'));
  const commands = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(commands).toContain('/v1/sessions');
  // Ids carry the day they were made (`alice~2026-11-29_1`): a fixed one answers 404 on any other day.
  expect(commands).not.toMatch(/\d{4}-\d{2}-\d{2}_\d+/);
  expect(commands).toMatch(/^SID=\$\(curl .*\/v1\/sessions \| jq -r \.id\)$/m);
  expect(commands).toContain('$URL/v1/sessions/$SID/turns');
});
