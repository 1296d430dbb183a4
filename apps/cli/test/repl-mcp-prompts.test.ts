import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentText, type OpenAiRecorder, openAiRecorder } from './helpers/openai-recorder.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const repl = useReplSandbox();
let server: OpenAiRecorder;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  server = await openAiRecorder(() => ({ text: 'Noted.' }));
  const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
  env = { LLM_PROVIDER_CONFIG: JSON.stringify(config), LLM_VENDOR: undefined };
});
afterEach(async () => {
  await server.close();
});

/** Types a line and Enter at the prompt already waited for (`submit` waits for the next one). */
async function enter(t: { write(data: string): void }, line: string): Promise<void> {
  t.write(line);
  await new Promise((r) => setTimeout(r, 30));
  t.write('\r');
}

/** The last user message the model was sent, as text. */
const lastUserText = () =>
  contentText(
    server.requests
      .at(-1)
      ?.messages.filter((m) => m.role === 'user')
      .at(-1)?.content,
  );

/** A skills folder with server-everything (stdio) as the skill `everything`. */
async function everythingSkills(root: string): Promise<string> {
  const skills = join(root, 'skills');
  await mkdir(join(skills, 'everything'), { recursive: true });
  await writeFile(
    join(skills, 'everything', 'SKILL.md'),
    `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`,
  );
  return skills;
}

/** A user command `/everything:simple-prompt`, which hides the server's prompt of that name. */
async function shadowingCommand(home: string): Promise<string> {
  const file = join(home, 'commands', 'everything:simple-prompt.md');
  await mkdir(join(home, 'commands'), { recursive: true });
  await writeFile(file, "---\ndescription: mine\n---\nThe user's own simple command.\n");
  return file;
}

describe('MCP prompts and resources in the REPL (compiled CLI, real terminal, server-everything)', {
  timeout: 120_000,
}, () => {
  it('a prompt is /server:prompt arg=value: /help lists it and the clash, Tab completes, its messages are the turn', async () => {
    const skills = await everythingSkills(repl.box.dir.path);
    const shadow = await shadowingCommand(repl.box.home);
    const t = repl.start(['--skills-dir', skills], { env });
    await t.expect('/help for commands');
    await t.submit('/help');
    await t.expect(
      /\/everything:args-prompt city=… \[state=…\]\s+A prompt with two arguments, one required and one optional · MCP server everything/,
    );
    await t.expect(`/everything:simple-prompt of MCP server everything is hidden by the user ${shadow}`);

    await t.submit('/everything:args-prompt city=Paris state=TX');
    await t.expect('Noted.');
    await t.prompt();
    expect(lastUserText()).toBe("What's weather in Paris, TX?");

    // Argument names, then values from completion/complete (the department given narrows the names). The `/` menu
    // shows the prompt once this prompt's completions are there.
    t.write('/everything:comp');
    await t.expect('/everything:completable-prompt department=… name=…');
    t.write('letable-prompt \t');
    await t.expect('department=  name=');
    t.write('d\t');
    await t.expect('› /everything:completable-prompt department=█');
    t.write('S\t');
    await t.expect('department=Sales  department=Support');
    t.write('a\t');
    await t.expect('› /everything:completable-prompt department=Sales █');
    t.write('name=\t');
    await t.expect('name=David  name=Eve  name=Frank');
    t.write('D\t');
    await t.expect('› /everything:completable-prompt department=Sales name=David █');
    t.write('\r');
    await t.expect('Noted.');
    await t.prompt();
    expect(lastUserText()).toBe('Please promote David to the head of the Sales team.');

    // An embedded resource goes with its uri and text.
    await enter(t, '/everything:resource-prompt resourceType=Text resourceId=4');
    await t.expect('Noted.');
    await t.prompt();
    expect(lastUserText()).toMatch(
      /^This prompt includes the Text resource with id: 4\. Please analyze the following resource:\n\n\[resource <demo:\/\/resource\/dynamic\/text\/4> text\/plain\]\nResource 4: This is a plaintext resource/,
    );

    // The user's command wins the clash.
    await enter(t, '/everything:simple-prompt');
    await t.expect('Noted.');
    await t.prompt();
    expect(lastUserText()).toBe("The user's own simple command.");

    // A required argument missing: said, nothing sent.
    const sent = server.requests.length;
    await enter(t, '/everything:args-prompt state=TX');
    await t.expect('/everything:args-prompt needs city. Usage: /everything:args-prompt city=… [state=…]');
    await t.prompt();
    expect(server.requests.length).toBe(sent);
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('@server:uri attaches the resource (Tab completes its URI); another @name: stays a path', async () => {
    const skills = await everythingSkills(repl.box.dir.path);
    const t = repl.start(['--skills-dir', skills], { env });
    await t.expect('/help for commands');
    // Once this prompt's completions are there (the `/` menu shows the server's prompts), Tab asks the server.
    t.write('/');
    await t.expect('/everything:simple-prompt');
    t.write('\x7fexplain @everything:demo://resource/static/document/archi\t');
    await t.expect('› explain @everything:demo://resource/static/document/architecture.md █');
    t.write('please\r');
    await t.expect(
      /attached @everything:demo:\/\/resource\/static\/document\/architecture\.md \(\d+ chars, following its changes\)/,
    );
    await t.expect('Noted.');
    await t.prompt();
    const text = lastUserText();
    expect(text).toMatch(
      /^explain @everything:demo:\/\/resource\/static\/document\/architecture\.md please\n\n<mcp-resource server="everything" uri="demo:\/\/resource\/static\/document\/architecture\.md">\n\[resource <demo:\/\/resource\/static\/document\/architecture\.md> text\/markdown\]\n/,
    );
    expect(text).toMatch(/<\/mcp-resource>$/);

    // `@nope:x` names no server: a path (none here), sent as typed.
    await enter(t, 'and @nope:thing');
    await t.expect('Noted.');
    await t.prompt();
    expect(lastUserText()).toBe('and @nope:thing');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('birdie skills check reports a prompt a command hides (mcp-prompt-shadowed)', async () => {
    const skills = await everythingSkills(repl.box.dir.path);
    await shadowingCommand(repl.box.home);
    const result = await runCli(['skills', 'check', '--skills-dir', skills], {
      env: repl.box.env,
      cwd: repl.box.cwd,
    });
    const said = result.stdout + result.stderr;
    expect(said).toContain('mcp-prompt-shadowed');
    expect(said).toContain(
      'The MCP prompt simple-prompt of everything is hidden: /everything:simple-prompt runs the user command',
    );
    expect(said).toContain(join(skills, 'everything', 'SKILL.md'));
  });
});
