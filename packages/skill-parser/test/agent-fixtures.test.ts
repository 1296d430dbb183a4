import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadAgentFile } from '../src/index.js';
import { brief } from './helpers.js';

const root = fileURLToPath(new URL('./fixtures/agents', import.meta.url));
const cases = readdirSync(root).sort();

interface Expected {
  messages: string[];
  agent: Record<string, unknown> | null;
}

/** The digest as the README defines it: frontmatter and body, BOM dropped, LF line ends, trimmed, joined by a fence. */
function documentedDigest(text: string): string {
  const lf = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const [, front, body] = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)([\s\S]*)$/.exec(lf)!;
  return createHash('sha256').update(`${front!.trim()}\n---\n${body!.trim()}`).digest('hex');
}

describe('agent fixtures (test/fixtures/agents/<case>/NAME.md → expected.json)', () => {
  it.each(cases)('%s', async (name) => {
    const dir = join(root, name);
    const fileName = readdirSync(dir).find((f) => f.endsWith('.md'))!;
    const file = join(dir, fileName);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    const result = await loadAgentFile(file);
    expect(result.messages.map(brief)).toEqual(expected.messages);
    for (const message of result.messages) {
      expect(message.source).toBe('skill-parser');
      expect(message.file).toBe(file);
      expect(String(message)).toMatch(new RegExp(`^${file}:${message.line}:${message.column}`));
    }
    if (expected.agent === null) {
      expect(result.agent).toBeUndefined();
      expect(result.messages.some((m) => m.fatal === true)).toBe(true);
      return;
    }
    const { digest, ...agent } = result.agent!;
    expect(agent).toEqual(JSON.parse(JSON.stringify(expected.agent).replaceAll('<dir>', dir)));
    expect(digest).toBe(documentedDigest(readFileSync(file, 'utf8')));
    expect(JSON.parse(JSON.stringify(result.agent))).toEqual(result.agent);
  });
});
