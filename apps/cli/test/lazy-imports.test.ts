import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_ROOT, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';

const exec = promisify(execFile);
const TRACE = join(CLI_ROOT, 'test', 'helpers', 'trace-imports.mjs');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

/** Runs the compiled CLI and returns every module URL it resolved. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const file = join(box.cwd, 'trace.txt');
  await exec(process.execPath, ['--import', TRACE, BIN, ...args], {
    env: { ...box.env, BIRDIE_TRACE_FILE: file },
    cwd: box.cwd,
  });
  return (await readFile(file, 'utf8')).trim().split('\n');
}

describe('cold start stays light', () => {
  it('--version and --help load only the CLI’s own modules and node builtins', async () => {
    for (const flag of ['--version', '--help', 'run --help']) {
      const urls = await modulesLoadedBy(flag.split(' '));
      const foreign = urls.filter(
        (u) =>
          !u.startsWith('node:') &&
          !u.startsWith(`file://${join(CLI_ROOT, 'dist')}`) &&
          !u.includes('/test/helpers/'),
      );
      expect(foreign, flag).toEqual([]);
      expect(urls.some((u) => u.endsWith('/dist/main.js'))).toBe(true);
    }
  });

  it('a scripted run loads no vendor package and no MCP client', async () => {
    const urls = await modulesLoadedBy(['run', 'count these', '--skills-dir', TEST_SKILLS]);
    expect(urls.some((u) => u.includes('@langchain/langgraph'))).toBe(true);
    for (const heavy of [
      '@langchain/openai',
      '@langchain/anthropic',
      '@langchain/google-genai',
      '@langchain/mistralai',
      '@langchain/ollama',
      '@langchain/mcp-adapters',
      '@clack/',
      '@grpc/',
      'protobufjs',
    ]) {
      expect(
        urls.filter((u) => u.includes(heavy)),
        heavy,
      ).toEqual([]);
    }
  });
});
