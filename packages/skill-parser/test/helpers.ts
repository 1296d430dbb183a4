import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { VFileMessage } from 'vfile-message';

/** `line:column ruleId severity`, the compact form fixture files use. */
export function brief(message: VFileMessage): string {
  const severity = message.fatal === true ? 'error' : message.fatal === false ? 'warning' : 'info';
  return `${message.line}:${message.column} ${message.ruleId} ${severity}`;
}

/** A real temporary folder filled with `files` (relative path → content); removed by the returned `cleanup`. */
export async function tempTree(files: Record<string, string | Buffer>) {
  const root = await mkdtemp(join(tmpdir(), 'skill-parser-'));
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export const skillText = (name: string, body = 'Body.', extra = '') =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\n\n${body}\n`;
