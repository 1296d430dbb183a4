import type { Skill } from '@birdie/skill-parser';

/**
 * Whether the skill's tool `name` runs a raw command (its entrypoint is nothing but `bash:{command}`): such a call is
 * never pre-approved by the tool's name, only by a command pattern.
 */
export function runsRawCommands(skill: Skill | undefined, name: string): boolean {
  const tool = skill?.tools.find((t) => t.name === name);
  return tool?.entrypoint.trim() === 'bash:{command}';
}

/**
 * The raw shell tools an approval pattern names without a command (`run_bash`, `shell:run_bash`, `shell:*`): the
 * pattern can never allow one of their calls, which only a command pattern (`run_bash(git status)`) does. Empty when
 * the pattern has a `(…)` part or names no such tool of `skills`. `agents check` warns of it for an agent's `approve`
 * (`approve-never-applies`), `birdie config add permissions.allow` when the rule is written.
 */
export function rawToolsNamedOnly(pattern: string, skills: readonly Skill[]): string[] {
  if (pattern.includes('(')) return [];
  const colon = pattern.indexOf(':');
  const skillName = colon === -1 ? undefined : pattern.slice(0, colon);
  const tool = pattern.slice(colon + 1);
  if (tool === '') return [];
  const named = skills.filter((s) => skillName === undefined || s.name === skillName);
  const tools = named.flatMap((skill) =>
    skill.tools
      .filter(
        (t) => (tool === '*' ? skillName !== undefined : t.name === tool) && runsRawCommands(skill, t.name),
      )
      .map((t) => t.name),
  );
  return [...new Set(tools)];
}
