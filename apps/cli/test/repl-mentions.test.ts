import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentText, type OpenAiRecorder, openAiRecorder } from './helpers/openai-recorder.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox();
let server: OpenAiRecorder;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  server = await openAiRecorder(() => ({ text: 'Read it.' }));
  const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
  env = { LLM_PROVIDER_CONFIG: JSON.stringify(config), LLM_VENDOR: undefined };
});
afterEach(async () => {
  await server.close();
});

/** Every user message the model was sent, as text. */
const userTexts = () =>
  server.requests.flatMap((r) =>
    r.messages.filter((m) => m.role === 'user').map((m) => contentText(m.content)),
  );

describe('@path mentions in the REPL (compiled CLI in a terminal)', { timeout: 90_000 }, () => {
  it('Tab completes a path after @, and the file goes with the message', async () => {
    const { cwd } = repl.box;
    await mkdir(join(cwd, 'docs'));
    await writeFile(join(cwd, 'docs', 'notes.txt'), 'The launch is on Friday.\n');
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit('/session info'); // the runtime is up: completion reads the working folder from it
    await t.expect(/session \S+ · user tester/);
    await t.prompt();
    t.write('summarise @do\t');
    await t.expect('› summarise @docs/█');
    t.write('no\t');
    await t.expect('› summarise @docs/notes.txt █');
    t.write('please\r');
    await t.expect('attached @docs/notes.txt (25 bytes)');
    await t.expect('Read it.');
    await t.prompt();
    const [sent] = userTexts();
    expect(sent).toBe(
      'summarise @docs/notes.txt please\n\n<file path="docs/notes.txt">\nThe launch is on Friday.\n\n</file>',
    );
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('refuses `..`, absolute paths and symlinks out of the working folder; caps a big file with a note', async () => {
    const { cwd, dir } = repl.box;
    await writeFile(join(dir.path, 'secret.txt'), 'TOP SECRET\n');
    await symlink(join(dir.path, 'secret.txt'), join(cwd, 'link.txt'));
    await writeFile(join(cwd, 'big.log'), 'x'.repeat(70 * 1024));
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit(`look at @../secret.txt and @${join(dir.path, 'secret.txt')} and @link.txt and @big.log`);
    await t.expect('@../secret.txt not attached: outside the working folder');
    await t.expect(`@${join(dir.path, 'secret.txt')} not attached: outside the working folder`);
    await t.expect('@link.txt not attached: a link to outside the working folder');
    await t.expect(`attached @big.log (first 65536 of ${70 * 1024} bytes: the rest is left out)`);
    await t.expect('Read it.');
    await t.prompt();
    const [sent] = userTexts();
    expect(sent).not.toContain('TOP SECRET');
    expect(sent).toContain('[truncated: 6144 more bytes not attached]');
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('a word that names no file (an address, a handle) stays text', async () => {
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit('mail me@example.com and ask @nobody');
    await t.expect('Read it.');
    await t.prompt();
    expect(userTexts()).toEqual(['mail me@example.com and ask @nobody']);
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });
});
