import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentText, type OpenAiRecorder, openAiRecorder } from './helpers/openai-recorder.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox();
let server: OpenAiRecorder;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  server = await openAiRecorder(() => ({ text: 'Done.' }));
  const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
  env = { LLM_PROVIDER_CONFIG: JSON.stringify(config), LLM_VENDOR: undefined };
});
afterEach(async () => {
  await server.close();
});

const lastUserText = () =>
  contentText(
    server.requests
      .at(-1)
      ?.messages.filter((m) => m.role === 'user')
      .at(-1)?.content,
  );

async function command(folder: string, name: string, text: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `${name}.md`), text);
}

describe('custom slash commands from Markdown files (compiled CLI in a terminal)', {
  timeout: 90_000,
}, () => {
  it('~/.birdie/commands/NAME.md is /NAME: $ARGUMENTS filled in, listed by /help with the clashes', async () => {
    const { home, cwd } = repl.box;
    const user = join(home, 'commands');
    const project = join(cwd, '.birdie', 'commands');
    await command(
      user,
      'explain',
      '---\ndescription: Explain something in one line\n---\nExplain $ARGUMENTS in one line.\n',
    );
    await command(user, 'help', 'Never used: the built-in /help wins.\n');
    await command(project, 'explain', 'Never used: the user command wins.\n');
    await command(project, 'ship', '---\ndescription: Ship it\n---\nWrite the release notes.\n');
    const t = repl.start(['--trust-workspace'], { env });
    await t.expect('/help for commands');
    await t.submit('/help');
    await t.expect(/\/explain ARGUMENTS\s+Explain something in one line · user /);
    await t.expect(/\/ship\s+Ship it · project \.birdie\/commands\/ship\.md/);
    await t.expect(`/help of user ${join(user, 'help.md')} is hidden by the built-in command`);
    await t.expect(
      `/explain of project .birdie/commands/explain.md is hidden by the user ${join(user, 'explain.md')}`,
    );
    await t.submit('/explain the parser');
    await t.expect('Done.');
    await t.prompt();
    expect(lastUserText()).toBe('Explain the parser in one line.');
    t.write('/ship\r');
    await t.expect('Done.');
    await t.prompt();
    expect(lastUserText()).toBe('Write the release notes.');
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it("a project's commands wait for the folder's trust: untrusted, /NAME is unknown and the trust question names the file", async () => {
    const { cwd } = repl.box;
    await command(join(cwd, '.birdie', 'commands'), 'ship', 'Write the release notes.\n');
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit('/ship');
    await t.expect('has commands you have not trusted');
    await t.expect('.birdie/commands/ship.md (a slash command: its text is sent as your message)');
    t.write('\r'); // Not now
    await t.expect('Unknown command /ship.');
    await t.prompt();
    expect(server.requests).toHaveLength(0);
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('a command with an agent makes that agent answer', async () => {
    const { home } = repl.box;
    await mkdir(join(home, 'agents'), { recursive: true });
    await writeFile(
      join(home, 'agents', 'critic.md'),
      '---\nname: critic\ndescription: Criticises.\n---\nYou are the critic. Be harsh.\n',
    );
    await command(join(home, 'commands'), 'critique', '---\nagent: critic\n---\nCritique $ARGUMENTS.\n');
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit('/critique my plan');
    await t.expect('Done.');
    await t.prompt();
    const system = contentText(server.requests.at(-1)!.messages[0]!.content);
    expect(system).toContain('You are the critic. Be harsh.');
    expect(lastUserText()).toBe('Critique my plan.');
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });
});
