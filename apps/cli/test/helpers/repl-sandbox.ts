import { afterEach, beforeEach } from 'vitest';
import { type Sandbox, sandbox } from './env.js';
import { Terminal } from './pty.js';

export interface TerminalOptions {
  /** Take out NO_COLOR (which every sandbox sets): answers are rendered and running tools shown live. */
  colors?: boolean;
  /** Variables added to (or, as `undefined`, taken out of) the sandbox's environment. */
  env?: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
}

export interface ReplSandbox {
  /** This test's sandbox (a fresh one for every test). */
  readonly box: Sandbox;
  /** The compiled CLI with `args` in a pty in the sandbox, killed after the test if it is still running. */
  start(args?: string[], options?: TerminalOptions): Terminal;
}

/**
 * For a test file of pty tests: before each test a sandbox with `env` (a scripted model, usually); after it, every
 * terminal it started is killed and the sandbox removed.
 */
export function useReplSandbox(env: NodeJS.ProcessEnv = {}): ReplSandbox {
  let current: Sandbox | undefined;
  const terminals: Terminal[] = [];
  beforeEach(async () => {
    current = await sandbox(env);
  });
  afterEach(async () => {
    for (const t of terminals.splice(0)) t.kill();
    await current?.cleanup();
    current = undefined;
  });
  const box = (): Sandbox => {
    if (!current) throw new Error('useReplSandbox: the sandbox exists only while a test runs');
    return current;
  };
  return {
    get box() {
      return box();
    },
    start(args = [], options = {}) {
      const env: NodeJS.ProcessEnv = { ...box().env, ...options.env };
      if (options.colors) delete env.NO_COLOR;
      for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
      const t = new Terminal(args, { env, cwd: box().cwd, cols: options.cols, rows: options.rows });
      terminals.push(t);
      return t;
    },
  };
}
