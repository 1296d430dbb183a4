import type { RuleEffect, RuleSource } from '@birdie/graph';

interface RuleSeen {
  effect: RuleEffect;
  pattern: string;
  source: RuleSource;
}

/** `_meta` of an update or a permission request a rule is behind: `birdie.rule`, for clients that read it. */
export function ruleMeta(rule: RuleSeen): { birdie: { rule: RuleSeen } } {
  return { birdie: { rule: { effect: rule.effect, pattern: rule.pattern, source: { ...rule.source } } } };
}

/**
 * Which rule, from which source, is behind a call, for titles (clients that only show titles): `decided` once the
 * rule decided the call (`allowed`, `refused`, `asked by the rule …`); `asks` for the question an ask rule makes, or
 * one that a command line too complex to check against a rule makes (the rule's own effect is then deny or allow).
 */
export function ruleNote(rule: RuleSeen, when: 'decided' | 'asks'): string {
  const from = rule.source.name ? `${rule.source.kind} ${rule.source.name}` : rule.source.kind;
  if (when === 'asks' && rule.effect !== 'ask')
    return `asked: the command line is too complex to check against the rule ${rule.pattern}, ${from}`;
  const verb = rule.effect === 'allow' ? 'allowed' : rule.effect === 'deny' ? 'refused' : 'asked';
  return `${verb} by the rule ${rule.pattern}, ${from}`;
}
