import type { RuleSource } from '@birdie/graph';

/** A call a deny rule refused during a turn: the rule as the run log names it, and the tool. */
export interface DenyRefusal {
  rule: string;
  tool: string;
}

/** A deny rule as messages name it elsewhere: its pattern, then where it was written. */
export function describeDenyRule(event: { pattern: string; source: RuleSource }): string {
  const { kind, name } = event.source;
  return `the deny rule \`${event.pattern}\` (${kind}${name ? ` ${name}` : ''})`;
}

/**
 * What the run log says of a turn whose calls deny rules refused: each rule once, with the tools it refused
 * (`refused by the deny rule `run_command(rm *)` (user ~/.birdie/config.json): run_command`).
 */
export function denyRefusalsText(refusals: readonly DenyRefusal[]): string {
  const byRule = new Map<string, Set<string>>();
  for (const { rule, tool } of refusals) byRule.set(rule, (byRule.get(rule) ?? new Set()).add(tool));
  return [...byRule].map(([rule, tools]) => `refused by ${rule}: ${[...tools].join(', ')}`).join('; ');
}
