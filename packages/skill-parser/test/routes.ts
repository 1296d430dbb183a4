import { VFile } from 'vfile';
import type { VFileMessage } from 'vfile-message';
import { expect } from 'vitest';
import { parseAgent, parseSkill } from '../src/index.js';
import { skillProcessor } from '../src/unified.js';

/** Everything a message says, as plain data, so that two routes' messages compare field by field. */
interface PlainMessage {
  text: string;
  ruleId: string | undefined;
  source: string | undefined;
  fatal: boolean | null | undefined;
  file: string | undefined;
  place: unknown;
}

function plain(message: VFileMessage): PlainMessage {
  return {
    text: String(message),
    ruleId: message.ruleId,
    source: message.source,
    fatal: message.fatal,
    file: message.file,
    place: message.place,
  };
}

const skills = skillProcessor();
const strictSkills = skillProcessor({ strict: true });
const agents = skillProcessor({ kind: 'agent' });

interface RouteResult {
  value: unknown;
  messages: PlainMessage[];
}

/** One file through the unified route: the real mdast tree, then the plugin. */
function viaUnified(text: string, path: string, kind: 'skill' | 'agent', strict: boolean): RouteResult {
  const processor = kind === 'agent' ? agents : strict ? strictSkills : skills;
  const file = new VFile({ path, value: text });
  processor.runSync(processor.parse(file), file);
  return { value: kind === 'agent' ? file.data.agent : file.data.skill, messages: file.messages.map(plain) };
}

/** One file through the fast route (`parseSkill` / `parseAgent`). */
function viaFast(text: string, path: string, kind: 'skill' | 'agent', strict: boolean): RouteResult {
  if (kind === 'agent') {
    const { agent, messages } = parseAgent(text, { path });
    return { value: agent, messages: messages.map(plain) };
  }
  const { skill, messages } = parseSkill(text, { path, ...(strict ? { strict } : {}) });
  return { value: skill, messages: messages.map(plain) };
}

/** Holds the two routes to one result on a file: the same typed value, the same messages in the same order. */
export function expectSameResult(
  text: string,
  path: string,
  options: { kind?: 'skill' | 'agent'; strict?: boolean; label?: string } = {},
): RouteResult {
  const kind = options.kind ?? 'skill';
  const strict = options.strict === true;
  const fast = viaFast(text, path, kind, strict);
  const unified = viaUnified(text, path, kind, strict);
  expect(unified, options.label ?? path).toEqual(fast);
  return fast;
}
