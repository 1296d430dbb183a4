import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FIXTURES } from './env.js';

/** Skills for the store's tests: `gated_step` (waits for a release file) and `append_token` (a side effect). */
export const STORE_SKILLS = join(FIXTURES, 'store-skills');

/** One message of `birdie sessions show ID --json`. */
export interface ShownMessage {
  role: string;
  content: string;
  id?: string;
  tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  name?: string;
  status?: string;
}

export function jsonLines<T = Record<string, unknown>>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The session id a `birdie run --json` printed first. */
export function sessionIdOf(stdout: string): string {
  const first = jsonLines<{ type: string; id: string }>(stdout)[0];
  if (first?.type !== 'session') throw new Error(`no session event in: ${stdout}`);
  return first.id;
}

/** Writes a scripted-model script (its replies) to `dir/name.json`; returns the env that selects it. */
export async function script(dir: string, name: string, replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ replies }));
  return { LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

/**
 * Every tool call in the history is answered by exactly one tool message, and every tool message answers a call
 * made before it: a history a provider accepts. Returns the answer of each call id.
 */
export function answers(messages: ShownMessage[]): Map<string, ShownMessage> {
  const calls = new Set<string>();
  const answered = new Map<string, ShownMessage>();
  for (const m of messages) {
    for (const call of m.tool_calls ?? []) {
      expect(calls.has(call.id), `tool call id ${call.id} used twice`).toBe(false);
      calls.add(call.id);
    }
    if (m.role === 'tool') {
      expect(calls.has(m.tool_call_id!), `tool message for unknown call ${m.tool_call_id}`).toBe(true);
      expect(answered.has(m.tool_call_id!), `call ${m.tool_call_id} answered twice`).toBe(false);
      answered.set(m.tool_call_id!, m);
    }
  }
  expect(
    [...calls].filter((id) => !answered.has(id)),
    'unanswered tool calls',
  ).toEqual([]);
  return answered;
}
