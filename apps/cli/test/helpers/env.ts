import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@birdie/test-utils';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

export const CLI_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(CLI_ROOT, 'dist', 'bin.js');
export const FIXTURES = join(CLI_ROOT, 'test', 'fixtures');
export const TEST_SKILLS = join(FIXTURES, 'skills');
export const SCRIPTS = join(FIXTURES, 'scripts');

export interface Sandbox {
  dir: TempDir;
  /** BIRDIE_HOME */
  home: string;
  /** HOME and the working directory of the command */
  cwd: string;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/**
 * A temp BIRDIE_HOME and HOME for one test, so nothing touches the real home; empty bundled-skills and bundled-agents
 * folders so tests depend only on their own fixtures.
 */
export async function sandbox(extra: NodeJS.ProcessEnv = {}): Promise<Sandbox> {
  const dir = await makeTempDir('birdie-cli-');
  const home = join(dir.path, 'birdie-home');
  const cwd = join(dir.path, 'work');
  const bundled = join(dir.path, 'bundled');
  const bundledAgents = join(dir.path, 'bundled-agents');
  await Promise.all([mkdir(home), mkdir(cwd), mkdir(bundled), mkdir(bundledAgents)]);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: cwd,
    USER: 'tester',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    BIRDIE_HOME: home,
    BIRDIE_BUNDLED_SKILLS: bundled,
    BIRDIE_BUNDLED_AGENTS: bundledAgents,
    ...extra,
  };
  return { dir, home, cwd, env, cleanup: () => dir.cleanup() };
}

export function scripted(script: string): NodeJS.ProcessEnv {
  return { LLM_VENDOR: 'scripted', LLM_SCRIPT: join(SCRIPTS, script) };
}
