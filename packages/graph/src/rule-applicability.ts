import { COMMAND_RUNNERS } from '@birdie/entrypoints';
import { type ApprovalPattern, parseApprovalPattern, type RuleEffect } from './approval-pattern.js';

/**
 * Why a valid rule can never apply to a tool (for `agents check` and settings checks to warn), or undefined when it
 * can. `tool.raw`: the tool runs a raw shell command. Throws `ApprovalRuleError` for a malformed pattern.
 *
 * - a bare raw shell tool in an allow rule (`run_bash`): a raw command is allowed only by command patterns;
 * - a command pattern for a tool that is not a raw shell tool, or argument constraints on one that is;
 * - a `*` after a program that runs other commands (`env *`, `sudo *`): it matches no argument, so only the bare
 *   program is allowed.
 */
export function inapplicableRuleReason(
  pattern: string | ApprovalPattern,
  tool: { name: string; raw?: boolean },
  effect: RuleEffect = 'allow',
): string | undefined {
  const parsed = typeof pattern === 'string' ? parseApprovalPattern(pattern) : pattern;
  const name = `\`${parsed.text}\``;
  if (tool.raw) {
    if (effect === 'allow' && !parsed.command)
      return parsed.arguments
        ? `${name} constrains the text of a raw shell command, which is never matched as text: write the command, e.g. \`${tool.name}(git status)\``
        : `${name} allows no command: a raw shell command is allowed only by a command pattern, e.g. \`${tool.name}(git status)\``;
    const program = parsed.command?.[0];
    if (
      program?.kind === 'literal' &&
      COMMAND_RUNNERS.has(program.text) &&
      parsed.command?.slice(1).some((w) => w.kind !== 'literal')
    )
      return `${name}: \`${program.text}\` runs other commands, so a \`*\` after it matches nothing (only the words written match)`;
    return undefined;
  }
  if (parsed.command)
    return `${name} is a command pattern, but \`${tool.name}\` does not run raw shell commands`;
  return undefined;
}
