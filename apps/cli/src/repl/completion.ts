/** What Tab completes and what the `/` menu lists, gathered before each prompt. */
export interface Completions {
  /** `/command` usage and description, as `/help` shows them. */
  commands: ReadonlyArray<readonly [string, string]>;
  /** Words the second or third word of a command may be: skill names, tool names, session ids, … */
  words(line: string): readonly string[];
  /** Paths an `@` mention may complete to (`src/`, `src/app.ts`), inside the working folder. */
  mentions?(partial: string): readonly string[];
  /**
   * Candidates a server must be asked for (an MCP prompt's arguments, `@server:` resource URIs): full words for the
   * word being typed, or undefined when `line` is not such a case (the other completions apply).
   */
  more?(line: string): Promise<readonly string[]> | undefined;
}

/** The longest start all the candidates share. */
function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return '';
  let prefix = values[0]!;
  for (const value of values.slice(1)) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * Tab on `line` (the cursor at its end): the word being typed, completed as far as the candidates agree, and the
 * candidates when they do not (shown under the prompt). A first word starting with `/` completes to a command.
 */
export function complete(line: string, completions: Completions): { line: string; options: string[] } {
  const at = line.lastIndexOf(' ') + 1;
  const word = line.slice(at);
  const first = at === 0;
  const mention = word.startsWith('@') && completions.mentions !== undefined;
  const pool = mention
    ? completions.mentions!(word.slice(1)).map((path) => `@${path}`)
    : first && line.startsWith('/')
      ? [...new Set(completions.commands.map(([usage]) => usage.split(/[\s,]/)[0]!))]
      : completions.words(line.slice(0, at));
  return completeWith(line, pool);
}

/** Tab on `line` with the candidates for its last word already known (see `Completions.more`). */
export function completeWith(line: string, pool: readonly string[]): { line: string; options: string[] } {
  const at = line.lastIndexOf(' ') + 1;
  const word = line.slice(at);
  const matches = pool.filter((candidate) => candidate.startsWith(word)).sort();
  if (matches.length === 0) return { line, options: [] };
  // A folder stays open for its files (no blank after `@src/`), an argument name for its value (`city=`).
  if (matches.length === 1)
    return { line: `${line.slice(0, at)}${matches[0]}${/[/=]$/.test(matches[0]!) ? '' : ' '}`, options: [] };
  const prefix = commonPrefix(matches);
  return { line: `${line.slice(0, at)}${prefix}`, options: prefix.length > word.length ? [] : matches };
}

/** The `/` menu: the commands whose name starts with what is typed, with their descriptions. */
export function commandMenu(line: string, completions: Completions): Array<readonly [string, string]> {
  if (!line.startsWith('/') || /\s/.test(line)) return [];
  return completions.commands.filter(([usage]) => usage.startsWith(line));
}
