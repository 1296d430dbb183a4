import type { RegistrySnapshot } from '@birdie/registry';
import type { DiagnosticLike } from './diagnostics.js';
import { UsageError } from './errors.js';
import { readRegularText } from './regular-file.js';

/**
 * A tool that cannot be run by that name (refused at load, or unknown): a usage error that carries the diagnostics
 * saying why, for a front end to show before it (in `skills check`'s format, with file:line).
 */
export class ToolLookupError extends UsageError {
  readonly diagnostics: readonly DiagnosticLike[];
  constructor(message: string, diagnostics: readonly DiagnosticLike[]) {
    super(message);
    this.diagnostics = diagnostics;
  }
}

/** Registry messages about a skills folder as a whole: one the user named may be why no tool of it is found. */
const FOLDER_RULES: ReadonlySet<string> = new Set([
  'dir-not-found',
  'dir-holds-skill',
  'dir-not-directory',
  'dir-unreadable',
  'scan-failed',
]);

const isProblem = (m: DiagnosticLike) => m.fatal === true || m.fatal === false;

/** The warnings about skills folders that loaded nothing (a missing `--skills-dir`, one skill's folder, …). */
export function folderProblems(snapshot: RegistrySnapshot): DiagnosticLike[] {
  return snapshot.messages.filter((m) => m.source === 'registry' && FOLDER_RULES.has(m.ruleId ?? ''));
}

/**
 * Why a tool the skills declare is not loaded, or `undefined` when no skill declares it. Either its own skill loaded
 * and the registry left the tool out (a placeholder the schema lacks, a name another skill has: a message names the
 * tool), or its skill file was refused whole (a parse error): then that file's errors and warnings. A refused file
 * never parsed, so its tools are found by a plain reading of its `###` headings.
 */
export async function toolRefusal(
  snapshot: RegistrySnapshot,
  name: string,
): Promise<{ file: string; diagnostics: DiagnosticLike[] } | undefined> {
  const loaded = new Set(snapshot.skills.map((s) => s.file));
  const refusedFiles = [
    ...new Set(
      snapshot.messages.filter((m) => m.fatal === true && m.file && !loaded.has(m.file)).map((m) => m.file!),
    ),
  ];
  for (const file of refusedFiles.sort()) {
    if (!declaresTool((await readRegularText(file)) ?? '', name)) continue;
    return { file, diagnostics: snapshot.messages.filter((m) => m.file === file && isProblem(m)) };
  }
  const named = snapshot.messages.filter((m) => isProblem(m) && m.reason.includes(`Tool \`${name}\``));
  return named.length > 0 && named[0]!.file ? { file: named[0]!.file, diagnostics: named } : undefined;
}

/** Whether the text has a `### name` heading (the name may be in backticks), as a tool block starts. */
function declaresTool(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^ {0,3}###[ \\t]+(\`?)${escaped}\\1[ \\t]*#*[ \\t]*$`, 'm').test(text);
}
