import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { contentText, type OpenAiRecorder, openAiRecorder } from './helpers/openai-recorder.js';

let box: Sandbox;
let server: OpenAiRecorder;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  box = await sandbox();
  server = await openAiRecorder(() => ({ text: 'ok' }));
  const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
  env = { ...box.env, LLM_PROVIDER_CONFIG: JSON.stringify(config) };
});
afterEach(async () => {
  await server.close();
  await box.cleanup();
});

const execFileAsync = promisify(execFile);

/** The system prompt of the latest request the model got. */
const lastSystem = () =>
  contentText(
    server.requests.at(-1)!.messages.find((m) => m.role === 'system' || m.role === 'developer')?.content,
  );

describe('memory files by name: the memory_files setting (birdie run against a local OpenAI-compatible server)', {
  timeout: 120_000,
}, () => {
  it("reads each named file, the user's at once and the project's once the folder is trusted (the trust question lists them)", async () => {
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { memory_files: ['AGENTS.md', 'CLAUDE.md', 'MEMORY.md'] } }),
    );
    await writeFile(join(box.home, 'MEMORY.md'), 'The user prefers short answers.\n');
    await mkdir(join(box.cwd, '.git'));
    await writeFile(join(box.cwd, 'CLAUDE.md'), 'Run the tests with make check.\n');
    await writeFile(join(box.cwd, 'GEMINI.md'), 'Not a memory file here.\n');

    const before = await birdie(['run', 'hello'], { env, cwd: box.cwd });
    expect(before.code, before.stderr).toBe(0);
    expect(lastSystem()).toContain('The user prefers short answers.');
    expect(lastSystem()).not.toContain('make check');

    const trusted = await birdie(['trust', box.cwd], { env, cwd: box.cwd });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(`Trusted ${realpathSync(box.cwd)}. Its memory files now load:`);
    expect(trusted.stdout).toContain('CLAUDE.md (31 bytes; read into every prompt)');

    const after = await birdie(['run', 'hello'], { env, cwd: box.cwd });
    expect(after.code, after.stderr).toBe(0);
    const system = lastSystem();
    expect(system).toContain('# Project instructions (MEMORY.md, CLAUDE.md)');
    expect(system).toContain(`<memory-file path="${join(box.home, 'MEMORY.md')}">`);
    expect(system).toContain('Run the tests with make check.');
    expect(system).not.toContain('Not a memory file here.');
  });

  it('a memory file name that is a path is refused where it is written', async () => {
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { memory_files: ['../secret.md'] } }),
    );
    const result = await birdie(['run', 'hello'], { env, cwd: box.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('settings.memory_files.0 must be plain file names (no folders, no `..`)');
  });

  it('birdie config set memory_files takes a comma-separated list', async () => {
    const set = await birdie(['config', 'set', 'memory_files', 'AGENTS.md,CLAUDE.md'], { env, cwd: box.cwd });
    expect(set.code, set.stderr).toBe(0);
    const get = await birdie(['config', 'get', 'memory_files'], { env, cwd: box.cwd });
    expect(get.stdout).toContain('AGENTS.md');
    expect(get.stdout).toContain('CLAUDE.md');
  });
});

// A memory file that is there but cannot be read was skipped without a word, and a named pipe in its place made every
// run wait for a writer for ever (not even SIGTERM ended it). The run goes on without it and says why.
describe('a memory file that is there but cannot be read (birdie run against a local OpenAI-compatible server)', {
  timeout: 120_000,
}, () => {
  it("a named pipe as the user's AGENTS.md: the run answers, and says the file is not read", async () => {
    const file = join(box.home, 'AGENTS.md');
    await execFileAsync('mkfifo', [file]);
    const run = await birdie(['run', 'hello'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ok');
    expect(run.stderr).toContain(
      `birdie: memory file ${file} is not read: it is not a regular file (a pipe, a socket or a device)`,
    );
  });

  it('a folder in its place, and a link to a file that is gone, are named the same way; readable ones still load', async () => {
    await mkdir(join(box.home, 'AGENTS.md'));
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { memory_files: ['AGENTS.md', 'MEMORY.md', 'NOTES.md'] } }),
    );
    await writeFile(join(box.home, 'MEMORY.md'), 'The user prefers short answers.\n');
    await symlink(join(box.dir.path, 'gone.md'), join(box.home, 'NOTES.md'));
    const run = await birdie(['run', 'hello'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(lastSystem()).toContain('The user prefers short answers.');
    expect(run.stderr).toContain(
      `birdie: memory file ${join(box.home, 'AGENTS.md')} is not read: it is a folder, not a file`,
    );
    expect(run.stderr).toContain(
      `birdie: memory file ${join(box.home, 'NOTES.md')} is not read: it is a symbolic link to ${join(box.dir.path, 'gone.md')}, which does not exist`,
    );
  });
});
