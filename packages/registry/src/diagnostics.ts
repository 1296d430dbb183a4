import { VFileMessage } from 'vfile-message';

/** Stable rule ids of the messages this package emits (all with `source: 'registry'`). */
export const RULES = {
  skillOverridden: 'skill-overridden',
  duplicateSkillName: 'duplicate-skill-name',
  skillNameCaseCollision: 'skill-name-case-collision',
  toolNameClash: 'tool-name-clash',
  dirNotDirectory: 'dir-not-directory',
  dirNotFound: 'dir-not-found',
  dirHoldsSkill: 'dir-holds-skill',
  dirUnreadable: 'dir-unreadable',
  scanFailed: 'scan-failed',
  invalidEntrypoint: 'invalid-entrypoint',
  unknownPlaceholder: 'unknown-placeholder',
  agentOverridden: 'agent-overridden',
  duplicateAgentName: 'duplicate-agent-name',
  agentNameCaseCollision: 'agent-name-case-collision',
  unknownAgent: 'unknown-agent',
  agentNamesItself: 'agent-names-itself',
  unknownSkill: 'unknown-skill',
  unknownTool: 'unknown-tool',
  toolOutOfReach: 'tool-out-of-reach',
  approveNeverApplies: 'approve-never-applies',
  schemaMismatch: 'schema-mismatch',
  codeOutsideWorkspace: 'code-outside-workspace',
  codeTakingCommand: 'code-taking-command',
} as const;

export type RegistryRuleId = (typeof RULES)[keyof typeof RULES];

/** `true` = unusable, `false` = warning, `undefined` = info (the vfile convention). */
export type Severity = 'info' | 'warning' | 'error';

export interface MessageInit {
  file: string;
  ruleId: RegistryRuleId;
  severity: Severity;
  line?: number | undefined;
  column?: number | undefined;
  cause?: Error;
}

/** A message shaped like the ones `vfile.message()` makes, so `String(message)` prints `file:line:col: reason`. */
export function registryMessage(reason: string, init: MessageInit): VFileMessage {
  const place = init.line === undefined ? undefined : { line: init.line, column: init.column ?? 1 };
  const message = new VFileMessage(reason, {
    ruleId: init.ruleId,
    source: 'registry',
    ...(place ? { place } : {}),
    ...(init.cause ? { cause: init.cause } : {}),
  });
  message.file = init.file;
  message.name = `${init.file}:${message.name}`;
  message.fatal = init.severity === 'error' ? true : init.severity === 'warning' ? false : undefined;
  return message;
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
