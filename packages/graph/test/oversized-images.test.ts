import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_IMAGE_BYTES } from '@birdie/entrypoints';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { type ChatRequest, fakeOpenAI } from './fake-openai.js';
import { collect, ofType, skillsFixture, toolMessages, toolSkill, useCleanups } from './helpers.js';

// An image a tool returns that is larger than the documented limit (DEFAULT_MAX_IMAGE_BYTES, 5 MiB of base64, as the
// vendors measure it) never reaches the model: the tool's text says it was dropped, with its type and size; a small
// image beside it still goes. BIG is 4 MiB decoded: under 5 MiB as bytes, over it as the base64 a request carries.

const cleanups = useCleanups();
const imageServer = fileURLToPath(new URL('./fixtures/image-server.mjs', import.meta.url));
const BIG = 4 * 1024 * 1024;
const BIG_BASE64 = Math.ceil(BIG / 3) * 4;

const SKILLS = {
  // A node: tool returning MCP-shaped content, as filesystem's read_file does.
  'pictures/SKILL.md': toolSkill('pictures', [{ name: 'look', entrypoint: 'node:tools.mjs#pictures' }]),
  'pictures/tools.mjs': `export function pictures() {
  return { content: [
    { type: 'text', text: 'Two pictures.' },
    { type: 'image', mimeType: 'image/png', data: 'AQID' },
    { type: 'image', mimeType: 'image/jpeg', data: Buffer.alloc(${BIG}).toString('base64') },
  ] };
}
`,
  // The same from a skill's MCP server.
  'images/SKILL.md': `---\nname: images\ndescription: MCP server with pictures\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([imageServer, String(BIG)])}\n---\n`,
};

const imageUrls = (request: ChatRequest | undefined) =>
  (request?.messages ?? []).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Array<{ type?: string; image_url?: { url?: string } }>)
          .filter((block) => block.type === 'image_url')
          .map((block) => block.image_url?.url)
      : [],
  );

describe.each([
  { from: 'a node: entrypoint', tool: 'look' },
  { from: "a skill's MCP server", tool: 'pictures' },
])('an image over the limit from $from', { timeout: 60_000 }, ({ tool }) => {
  it('is replaced by a note saying it was dropped, its type and size; the small one still reaches the model', async () => {
    const server = await fakeOpenAI(cleanups, (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('look'))
        return { call: { name: tool, args: {} } };
      return { text: 'Seen.' };
    });
    const fx = await skillsFixture(SKILLS);
    const agent = createAgent({ model: server.model('gpt-4o'), registry: fx.registry, policy: fx.policy });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });
    const events = await collect(agent.stream('look at the pictures', { threadId: 't', cwd: fx.dir.path }));
    expect(ofType(events, 'error')).toEqual([]);
    const [result] = await toolMessages(agent, 't');
    const text = String(result?.content);
    expect(text).toContain('Two pictures.');
    expect(text).toContain(
      `[image dropped: image/jpeg, ${BIG} bytes (${BIG_BASE64} as base64), over the ${DEFAULT_MAX_IMAGE_BYTES} bytes of base64 an image may have]`,
    );
    expect(server.requests).toHaveLength(2);
    expect(imageUrls(server.requests[1])).toEqual(['data:image/png;base64,AQID']);
  });
});
