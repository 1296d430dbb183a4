import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (author) #2 and #6: `birdie mcp remove` deleted the whole skill folder, the user's own files in
// it too; `birdie mcp add NAME -- node ./server.js` wrote the relative path as given, which start-up then resolved
// inside the skill folder, so the server never started.

/** The demo server as the CLI ships it: bundled, so a copy runs from any folder. */
const DEMO_DIST = join(CLI_ROOT, 'dist', 'skills', 'mcp-demo', 'dist');

let box: Sandbox;
const run = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = box.cwd) =>
  birdie(args, { env: { ...box.env, ...env }, cwd });

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie mcp add | remove and the files around them', { timeout: 120_000 }, () => {
  it('writes relative paths of the command line as absolute ones, resolved where mcp add ran', async () => {
    const project = join(box.cwd, 'project');
    await mkdir(join(project, 'myserver'), { recursive: true });
    for (const file of ['server.js', 'tools.js'])
      await copyFile(join(DEMO_DIST, file), join(project, 'myserver', file));
    // The server imports the MCP SDK: the project's node_modules is the CLI's (a link, nothing copied).
    await symlink(join(CLI_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
    const added = await run(['mcp', 'add', 'mine', '--', 'node', './myserver/server.js'], {}, project);
    expect(added.code, added.stderr).toBe(0);
    const text = await readFile(join(box.home, 'skills', 'mine', 'SKILL.md'), 'utf8');
    expect(text).toContain(`- ${join(project, 'myserver', 'server.js')}`);
    const script = join(box.dir.path, 'reverse.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          { match: 'reverse', tool_calls: [{ name: 'reverse_string', args: { text: 'abc' } }] },
          { match: 'reverse', text: 'done' },
        ],
      }),
    );
    const turn = await run(['run', '--enable', 'mine', '--json', 'reverse abc'], {
      LLM_VENDOR: 'scripted',
      LLM_SCRIPT: script,
    });
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout).toContain('cba');
  });

  it('leaves a word that names a folder, or no file, as written: `python -m server`, `uvx pkg` (review)', async () => {
    const project = join(box.cwd, 'modules');
    await mkdir(join(project, 'server'), { recursive: true });
    await mkdir(join(project, 'pkg'), { recursive: true });
    await writeFile(join(project, 'main.py'), 'print(1)\n');
    const added = await run(
      ['mcp', 'add', 'pyserver', '--', 'python3', '-m', 'server', 'pkg', 'main.py'],
      {},
      project,
    );
    expect(added.code, added.stderr).toBe(0);
    const text = await readFile(join(box.home, 'skills', 'pyserver', 'SKILL.md'), 'utf8');
    expect(text).toContain('- server\n');
    expect(text).toContain('- pkg\n');
    // a file of that folder is the shell's reading of the word: made absolute
    expect(text).toContain(`- ${join(project, 'main.py')}`);
  });

  // Reported: the README's own example `birdie mcp add memory -- npx -y @modelcontextprotocol/server-memory` wrote
  // `/where/it/ran/@modelcontextprotocol/server-memory`: every word with a `/` was taken for a path (and its name,
  // `memory`, is a bundled skill's, so as printed it was refused: the example is now `graph-memory`).
  it('leaves a scoped npm package, a URL and a path that does not exist in that folder as written', async () => {
    const project = join(box.cwd, 'packages-words');
    await mkdir(join(project, 'dist'), { recursive: true });
    await writeFile(join(project, 'dist', 'server.js'), '');
    const added = await run(
      [
        'mcp',
        'add',
        'scoped',
        '--',
        'npx',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        'https://example.com/x',
        'git+https://example.com/r.git',
        'not/here.js',
        'dist/server.js',
      ],
      {},
      project,
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = (await run(['mcp', 'list', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; target: string })
      .find((server) => server.name === 'scoped');
    // a path that names a file there is the shell's reading: made absolute, as before
    expect(listed?.target).toBe(
      `npx -y @modelcontextprotocol/server-filesystem https://example.com/x git+https://example.com/r.git not/here.js ${join(project, 'dist', 'server.js')}`,
    );
    // A command with a `/` is a path of that folder, built yet or not (review): start-up would look in the skill folder.
    expect((await run(['mcp', 'add', 'cmdpath', '--', 'bin/server', '-v'], {}, project)).code).toBe(0);
    const cmd = (await run(['mcp', 'list', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; target: string })
      .find((server) => server.name === 'cmdpath');
    expect(cmd?.target).toBe(`${join(project, 'bin', 'server')} -v`);
    const example = await run([
      'mcp',
      'add',
      'graph-memory',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-memory',
    ]);
    expect(example.code, example.stderr).toBe(0);
    // `mcp list` shows it in a table with a header, its command line as written
    const list = await run(['mcp', 'list']);
    expect(list.stdout).toMatch(/^NAME\s+TRANSPORT\s+COMMAND OR URL\s+LAYER\n/);
    expect(list.stdout).toMatch(
      /\nscoped\s+stdio\s+npx -y @modelcontextprotocol\/server-filesystem https:\/\/example\.com\/x .*\s+user \(mcp add\)\n/,
    );
  });

  it('mcp remove removes only the SKILL.md it wrote and keeps, and names, the other files', async () => {
    const added = await run(['mcp', 'add', 'kept', '--', 'node', 'server.js']);
    expect(added.code, added.stderr).toBe(0);
    const dir = join(box.home, 'skills', 'kept');
    await writeFile(join(dir, 'server.js'), 'console.log("my server source")\n');
    await writeFile(join(dir, 'NOTES.md'), 'private notes\n');
    const removed = await run(['mcp', 'remove', 'kept']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(dir, 'SKILL.md'))).toBe(false);
    expect(await readFile(join(dir, 'server.js'), 'utf8')).toBe('console.log("my server source")\n');
    expect(await readFile(join(dir, 'NOTES.md'), 'utf8')).toBe('private notes\n');
    expect(removed.stdout).toContain('NOTES.md');
    expect(removed.stdout).toContain('server.js');
    const list = await run(['mcp', 'list', '--json']);
    expect(list.stdout).not.toContain('"kept"');
  });

  it('mcp remove of a folder holding only its SKILL.md removes the folder', async () => {
    expect((await run(['mcp', 'add', 'alone', '--url', 'https://mcp.example.com/mcp'])).code).toBe(0);
    const removed = await run(['mcp', 'remove', 'alone']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(box.home, 'skills', 'alone'))).toBe(false);
  });
});
