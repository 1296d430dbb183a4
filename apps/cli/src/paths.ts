import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuntimeIo } from '@birdie/runtime/io';

// Both folders are inside the CLI's own package, found from the compiled file (dist/…): never the working folder nor
// anything above the package (a project's or a global prefix's `skills/` would otherwise be trusted as bundled).

/** The bundled skills, copied into `dist/skills` by the build (build/bundle.mjs) from the repository's `skills/`. */
export function bundledSkillsDir(env: NodeJS.ProcessEnv): string {
  if (env.BIRDIE_BUNDLED_SKILLS) return resolve(env.BIRDIE_BUNDLED_SKILLS);
  return fileURLToPath(new URL('./skills', import.meta.url));
}

/** The CLI's own agents (`apps/cli/agents`, shipped in the package), found from the compiled file (dist → ../agents). */
export function bundledAgentsDir(env: NodeJS.ProcessEnv): string {
  if (env.BIRDIE_BUNDLED_AGENTS) return resolve(env.BIRDIE_BUNDLED_AGENTS);
  return fileURLToPath(new URL('../agents', import.meta.url));
}

/** The CLI's bundled layer, as the runtime reads it. */
export function bundledLayer(env: NodeJS.ProcessEnv): NonNullable<RuntimeIo['bundled']> {
  return { skills: bundledSkillsDir(env), agents: bundledAgentsDir(env) };
}

/** `io` with the CLI's bundled layer: `main` gives it to every command, the REPL's boot to a caller that did not. */
export function withBundledLayer<T extends { env: NodeJS.ProcessEnv; bundled?: RuntimeIo['bundled'] }>(
  io: T,
): T {
  return io.bundled ? io : { ...io, bundled: bundledLayer(io.env) };
}
