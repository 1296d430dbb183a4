import { stat } from 'node:fs/promises';
import {
  EntrypointError,
  type RunOptions,
  resolveEntrypoint,
  sandboxStatus,
  type ToolSettings,
} from '../src/index.js';

/**
 * The sandbox tests run real bubblewrap. Where it is missing they fail, on purpose, with the way to install it: a
 * sandbox that was never exercised must not pass as a tested one.
 */
export async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    throw new Error(
      `the sandbox tests need a working bubblewrap: ${status.reason}. (run "sh scripts/system-packages.sh", as README command 1 and CI do; on Debian/Ubuntu: apt-get install -y bubblewrap)`,
    );
  }
}

export type Outcome =
  | { ok: true; output: string; exitCode?: number }
  | { ok: false; code: string; message: string; exitCode?: number; output?: string };

/** Runs one call of `entrypoint` and returns what it gave, its error (an EntrypointError) included. */
export async function call(
  entrypoint: string,
  settings: ToolSettings,
  args: Record<string, unknown>,
  options: RunOptions,
  skillDir = options.cwd!,
): Promise<Outcome> {
  try {
    const result = await resolveEntrypoint(entrypoint, { skillDir, settings }).run(args, options);
    return {
      ok: true,
      output: result.output,
      ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    };
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return {
      ok: false,
      code: error.code,
      message: error.message,
      ...(error.exitCode === undefined ? {} : { exitCode: error.exitCode }),
      ...(error.output === undefined ? {} : { output: error.output }),
    };
  }
}

export const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

export const SANDBOXED: ToolSettings = { sandbox: true };
export const PLAIN: ToolSettings = {};
