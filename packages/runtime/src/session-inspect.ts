import type { Confinement } from '@birdie/entrypoints';
import { confinementOfTool } from './isolation.js';
import { memoryFileOptions } from './memory-file-options.js';
import type { Runtime } from './runtime.js';

// What a front end shows about a running session (the REPL's /info): facts as data, the wording is the front end's.

/** The session's enabled skill tools by how a call of them runs now: what each one can touch. */
export async function toolsByConfinement(
  rt: Pick<Runtime, 'registry' | 'agent'>,
  sessionId: string,
): Promise<Record<Confinement, string[]>> {
  const snapshot = rt.registry.current();
  const by: Record<Confinement, string[]> = { sandbox: [], container: [], 'in-process': [], none: [] };
  for (const declared of await rt.agent.toolsFor(sessionId)) {
    const entry = declared.skill ? snapshot.getTool(declared.name) : undefined;
    if (!entry || entry.skill.name !== declared.skill) continue;
    by[await confinementOfTool(entry.skill, entry.tool)].push(declared.name);
  }
  return by;
}

/**
 * The AGENTS.md files a turn reads now (the user's and the project's), and those of the project it leaves out while
 * the working folder is untrusted. Absolute paths.
 */
export async function memoryFiles(
  rt: Pick<Runtime, 'io' | 'cwd' | 'workspaceTrusted' | 'config'>,
): Promise<{ read: string[]; skipped: string[] }> {
  const { findMemoryFiles } = await import('@birdie/graph');
  // The `memory_files` setting's names, in the user's folder and each project folder, as a turn reads them.
  const where = memoryFileOptions(rt);
  const trusted = rt.workspaceTrusted();
  const read = await findMemoryFiles({ cwd: rt.cwd, ...where, project: trusted });
  const all = trusted ? read : await findMemoryFiles({ cwd: rt.cwd, ...where, project: true });
  return {
    read: read.map((f) => f.path),
    skipped: all.filter((f) => !read.some((r) => r.path === f.path)).map((f) => f.path),
  };
}
