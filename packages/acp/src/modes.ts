import type { SessionModeState } from '@agentclientprotocol/sdk';
import type { ApprovalMode } from '@birdie/graph';

/** birdie's approval modes, offered as the session's ACP modes. */
export const ACP_MODES: ReadonlyArray<{ id: ApprovalMode; name: string; description: string }> = [
  { id: 'ask', name: 'Ask', description: 'Ask before shell commands and tools that require approval' },
  { id: 'always', name: 'Always ask', description: 'Ask before every tool call' },
  { id: 'never', name: 'Never ask', description: 'Run every tool call without asking' },
];

export function isApprovalMode(value: string): value is ApprovalMode {
  return ACP_MODES.some((mode) => mode.id === value);
}

export function modeState(current: ApprovalMode): SessionModeState {
  return { currentModeId: current, availableModes: ACP_MODES.map((mode) => ({ ...mode })) };
}
