import type { Style } from '../render/style.js';

export interface StatusInput {
  /** The agent answering, when one is named. */
  agent?: string;
  vendor: string;
  model: string;
  sessionId: string;
  contextTokens: number;
  inputTokens: number;
  outputTokens: number;
}

/** `[agent: NAME │ ]vendor · model │ session: ID │ ctx: N tok │ spent: ↑IN ↓OUT tok` */
export function statusLine(s: StatusInput, style: Style): string {
  const bar = style('dim', ' │ ');
  return style(
    'dim',
    [
      ...(s.agent ? [`agent: ${s.agent}`] : []),
      `${s.vendor} · ${s.model}`,
      `session: ${s.sessionId}`,
      `ctx: ${s.contextTokens} tok`,
      `spent: ↑${s.inputTokens} ↓${s.outputTokens} tok`,
    ].join(bar),
  );
}
