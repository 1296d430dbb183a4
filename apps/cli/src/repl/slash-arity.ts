import { SLASH_COMMANDS } from './slash-commands.js';

/**
 * The most words a built-in command takes after its name, by its first word where forms differ. A word beyond them
 * would otherwise be dropped without a word (`/approval never always` set `never`): it is refused with the usage
 * instead. Commands that take free text (`/remember`, `/compact`, `/session rename`, `/config set`) are not listed.
 */
const MOST_WORDS: Record<string, (rest: string[]) => number> = {
  help: () => 0,
  info: () => 0,
  new: () => 0,
  clear: () => 0,
  permissions: () => 0,
  quit: () => 0,
  exit: () => 0,
  approval: () => 1,
  model: () => 1,
  agent: () => 1,
  tool: (rest) => (rest[0] === 'output' ? 2 : 1),
  memory: (rest) => (rest[0] === 'forget' ? 2 : 1),
  session: (rest) =>
    rest[0] === 'rename' ? Number.POSITIVE_INFINITY : rest[0] === 'switch' || rest[0] === 'delete' ? 2 : 1,
  // `/skill enable A B` acts on every name.
  skill: (rest) => (rest[0] === 'enable' || rest[0] === 'disable' ? Number.POSITIVE_INFINITY : 1),
};

/** The answer to `/name …rest` when it has words the command does not take; undefined when it has none too many. */
export function extraWordsAnswer(name: string, rest: string[]): string | undefined {
  const most = MOST_WORDS[name]?.(rest);
  if (most === undefined || rest.length <= most) return undefined;
  const extra = rest.slice(most).join(' ');
  const usages = SLASH_COMMANDS.map(([usage]) => usage.split(',')[0]!).filter(
    (usage) => usage === `/${name}` || usage.startsWith(`/${name} `),
  );
  return `/${name} does not take "${extra}". Usage: ${usages.length ? usages.join(' | ') : `/${name}`}`;
}
