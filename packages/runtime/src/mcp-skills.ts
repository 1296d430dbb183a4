import { readdir, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Skill } from '@birdie/skill-parser';
import { stringify } from 'yaml';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { ensureFolder } from './folders.js';
import type { RuntimeIo } from './io.js';
import { userSkillsDir } from './paths.js';
import { readRegularText } from './regular-file.js';
import { checkNewName } from './scaffold.js';
import { openTrustedRegistry } from './skills.js';

/** The `metadata` key `birdie mcp add` writes: `birdie mcp remove` removes only folders that carry it. */
export const ADDED_BY = 'added-by';
const ADDED_BY_VALUE = 'birdie mcp add';

export interface McpServerToAdd {
  name: string;
  /** A stdio server: the program and its arguments. */
  command?: string[];
  /** A remote server (streamable HTTP). */
  url?: string;
  description?: string;
}

/** What `birdie mcp list` shows of a skill's MCP server. */
export interface McpServerSkill {
  name: string;
  transport: string;
  /** The command line of a stdio server, or the URL of a remote one. */
  target: string;
  /** Where the skill was loaded from. */
  layer: string;
  file: string;
  /** Written by `birdie mcp add` (and so removable by `birdie mcp remove`). */
  added: boolean;
}

const addedHere = (skill: Pick<Skill, 'metadata'>) => skill.metadata?.[ADDED_BY] === ADDED_BY_VALUE;

/**
 * `birdie mcp add`: a skill folder in the user's skills folder whose SKILL.md has the `mcp_server` frontmatter, so the
 * server's tools go through the same trust, policy and approvals as any skill's. Disabled by default (enable it per
 * session or with the `skills.enable` setting). Usage errors: an invalid name, a name a loaded skill has, neither or
 * both of a command and a URL, a URL that is not http(s).
 */
export async function addMcpSkill(
  io: RuntimeIo,
  flags: Flags,
  server: McpServerToAdd,
): Promise<{ dir: string; file: string }> {
  checkNewName('skill', server.name, 'my-server');
  const command = server.command ?? [];
  if (command.length === 0 && server.url === undefined)
    throw new UsageError(
      `missing the server: birdie mcp add ${server.name} -- COMMAND [ARGS…], or --url URL`,
    );
  if (command.length > 0 && server.url !== undefined)
    throw new UsageError('give either a command (after --) or --url, not both');
  if (
    server.url !== undefined &&
    !(URL.canParse(server.url) && /^https?:$/.test(new URL(server.url).protocol))
  )
    throw new UsageError(`--url must be an http(s) URL, got "${server.url}"`);
  const registry = await openTrustedRegistry(io, flags);
  const snapshot = registry.current();
  const clash = snapshot.getSkill(server.name);
  if (clash)
    throw new UsageError(
      `a skill named "${server.name}" already exists (${snapshot.layerOf(clash.name)?.layer ?? 'loaded'}: ${clash.file}); pick another name`,
    );
  const dir = join(userSkillsDir(io.env), server.name);
  await ensureFolder(userSkillsDir(io.env), 0o777);
  const frontmatter = {
    name: server.name,
    description: server.description ?? `The tools of the ${server.name} MCP server.`,
    enabled_by_default: false,
    metadata: { [ADDED_BY]: ADDED_BY_VALUE },
    mcp_server:
      server.url !== undefined
        ? { transport: 'streamable_http', url: server.url }
        : await absoluteCommandLine(command, io.cwd),
  };
  const body = `# ${server.name}\n\nAdded with \`birdie mcp add\`; its tools come from the MCP server above. Remove it with \`birdie mcp remove ${server.name}\`.\n`;
  try {
    await ensureFolder(dir, 0o777);
    const file = join(dir, 'SKILL.md');
    await writeFile(file, `---\n${stringify(frontmatter)}---\n\n${body}`, { flag: 'wx' });
    return { dir, file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${dir} already holds a SKILL.md; pick another name`);
    throw error;
  }
}

/**
 * The stdio server's command line with its relative paths made absolute against `cwd`, the folder `mcp add` ran in,
 * as a shell would take them there: at start-up `./…` would otherwise resolve inside the skill folder. A word is such
 * a path when it is `.`, `..`, starts with `./` or `../`, or names something that exists in `cwd` (`server.js`,
 * `dist/server.js`; for the command, a file). A `/` alone does not make a path: `@scope/package`, a URL and
 * `git+https://…` are what `npx` and `uvx` take, and a bare word naming a folder is far more often a module or a
 * package (`python -m server`, `uvx pkg`). Options (`-…`) are left as they are.
 */
async function absoluteCommandLine(
  command: string[],
  cwd: string,
): Promise<{ transport: 'stdio'; command: string; args: string[] }> {
  const [program, ...args] = command as [string, ...string[]];
  const relative = (word: string) => !isAbsolute(word) && !word.startsWith('-');
  const dotted = (word: string) =>
    word === '.' || word === '..' || word.startsWith('./') || word.startsWith('../');
  // What is there: a file, or (for a word with a `/`, which no module name has) anything.
  const exists = (word: string) =>
    stat(resolve(cwd, word)).then(
      (found) => found.isFile() || word.includes('/'),
      () => false,
    );
  const path = async (word: string) => relative(word) && (dotted(word) || (await exists(word)));
  return {
    transport: 'stdio',
    // A bare `node` is looked up in PATH; a command with a `/` is a path (no package is run by one), there or not yet.
    command: relative(program) && program.includes('/') ? resolve(cwd, program) : program,
    args: await Promise.all(args.map(async (word) => ((await path(word)) ? resolve(cwd, word) : word))),
  };
}

/** Every loaded skill with an MCP server, whichever layer it comes from. */
export async function listMcpSkills(io: RuntimeIo, flags: Flags): Promise<McpServerSkill[]> {
  const snapshot = (await openTrustedRegistry(io, flags)).current();
  return snapshot.skills
    .filter((skill) => skill.mcpServer !== undefined)
    .map((skill) => {
      const server = skill.mcpServer!;
      return {
        name: skill.name,
        transport: server.transport,
        target: server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url,
        layer: snapshot.layerOf(skill.name)?.layer ?? 'unknown',
        file: skill.file,
        added: addedHere(skill),
      };
    });
}

/**
 * `birdie mcp remove`: deletes the SKILL.md `birdie mcp add` wrote in the user's skill folder `NAME` (it carries the
 * marker), and the folder when nothing else is in it. Other files there are the user's (a server's source, notes):
 * they stay, and `kept` names them. Usage errors when the SKILL.md is missing or was not written by `mcp add`.
 */
export async function removeMcpSkill(
  io: RuntimeIo,
  name: string,
): Promise<{ dir: string; file: string; kept: string[] }> {
  checkNewName('skill', name, 'my-server');
  const dir = join(userSkillsDir(io.env), name);
  const file = join(dir, 'SKILL.md');
  const text = await readRegularText(file);
  if (text === undefined)
    throw new UsageError(
      `no MCP server "${name}" in ${userSkillsDir(io.env)} (\`birdie mcp list\` shows them)`,
    );
  const { parseSkill } = await import('@birdie/skill-parser');
  const { skill } = parseSkill(text, { path: file });
  if (!skill || !addedHere(skill))
    throw new UsageError(`${dir} was not written by \`birdie mcp add\`; remove or edit it yourself`);
  await unlink(file);
  const kept = (await readdir(dir)).sort();
  if (kept.length === 0) await rmdir(dir);
  return { dir, file, kept };
}
