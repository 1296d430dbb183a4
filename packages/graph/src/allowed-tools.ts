import { approvalPatternProblem } from './approval-pattern.js';

/**
 * Claude Code tool names in a skill's `allowed-tools` → birdie's tools (the README's table). A name maps to several
 * tools where birdie splits what Claude Code's tool does (`Edit` changes files: `write_file` and `append_file`).
 */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ['read_file'],
  Write: ['write_file'],
  Edit: ['write_file', 'append_file'],
  MultiEdit: ['write_file', 'append_file'],
  LS: ['list_dir'],
  Glob: ['list_dir'],
  Grep: ['search_files'],
  WebSearch: ['web_search'],
  Task: ['task'],
};

/** Claude Code tools that take a path in parentheses (`Read(docs/**)`), and the birdie argument it constrains. */
const PATH_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'LS', 'Glob', 'Grep']);

const ANY_COMMAND = /^\s*(:?\*?)\s*$/;

function mapBash(entry: string, inner: string | undefined): { pattern?: string; warning?: string } {
  if (inner === undefined || ANY_COMMAND.test(inner))
    return {
      warning: `\`${entry}\` would allow any shell command; it is ignored (name the commands: \`Bash(git add:*)\`)`,
    };
  // `npm test:*` (Claude Code's prefix form) and `npm test *` both mean the prefix and then anything.
  const command = inner.trim().replace(/:\*$/, ' *');
  return { pattern: `run_bash(${command})` };
}

/**
 * Maps a skill's `allowed-tools` (Claude Code syntax: `Bash(git add:*)`, `Read`, `Edit(docs/**)`) to approval
 * patterns (`run_bash(git add *)`, `read_file`, `write_file(path=docs/**)`). Entries already written as birdie
 * patterns (lower-case tool names) are kept as they are. An entry that would allow any command (`Bash`, `Bash(*)`),
 * a tool birdie has no equivalent for, or a pattern that does not parse is left out with a warning.
 */
export function mapAllowedTools(entries: readonly string[]): { patterns: string[]; warnings: string[] } {
  const patterns: string[] = [];
  const warnings: string[] = [];
  const add = (pattern: string, entry: string) => {
    const problem = approvalPatternProblem(pattern);
    if (problem !== undefined) warnings.push(`\`${entry}\` is not a valid rule: ${problem}`);
    else if (!patterns.includes(pattern)) patterns.push(pattern);
  };
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?$/s.exec(entry);
    const name = match?.[1];
    const inner = match?.[2];
    if (name === 'Bash') {
      const mapped = mapBash(entry, inner);
      if (mapped.warning) warnings.push(mapped.warning);
      else add(mapped.pattern as string, entry);
      continue;
    }
    const tools = name ? CLAUDE_CODE_TOOLS[name] : undefined;
    if (tools) {
      if (inner === undefined || inner.trim() === '' || inner.trim() === '*' || inner.trim() === '**') {
        for (const tool of tools) add(tool, entry);
        continue;
      }
      const path = inner.trim();
      if (!PATH_TOOLS.has(name as string) || /^(\/|~)/.test(path)) {
        warnings.push(
          `\`${entry}\`: only paths relative to the working folder map to birdie's tools; ignored`,
        );
        continue;
      }
      for (const tool of tools) add(`${tool}(path=${path})`, entry);
      continue;
    }
    if (/^[a-z]/.test(entry) && !entry.startsWith('mcp__')) {
      add(entry, entry);
      continue;
    }
    warnings.push(`\`${entry}\` has no birdie equivalent; ignored`);
  }
  return { patterns, warnings };
}
