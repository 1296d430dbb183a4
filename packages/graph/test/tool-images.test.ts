import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { type ChatRequest, fakeOpenAI } from './fake-openai.js';
import { collect, ofType, skillsFixture, toolMessages, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** A skill whose node: tool returns an image the way filesystem's read_file does: `{ content: [text, image] }`. */
const PICTURES = {
  'pictures/SKILL.md': toolSkill('pictures', [{ name: 'look', entrypoint: 'node:tools.mjs#look' }]),
  'pictures/tools.mjs': `export function look() {
  return { content: [
    { type: 'text', text: 'Image file "dot.png": image/png, 3 bytes.' },
    { type: 'image', mimeType: 'image/png', data: 'AQID' },
  ] };
}
`,
};

const DATA_URL = 'data:image/png;base64,AQID';

/** Every image URL anywhere in a request. */
const imageUrls = (request: ChatRequest | undefined) =>
  (request?.messages ?? []).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Array<{ type?: string; image_url?: { url?: string } }>)
          .filter((block) => block.type === 'image_url')
          .map((block) => block.image_url?.url)
      : [],
  );

async function run(modelName: string) {
  const server = await fakeOpenAI(cleanups, (request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('look'))
      return { call: { name: 'look', args: {} } };
    return { text: 'A small dot.' };
  });
  const fx = await skillsFixture(PICTURES);
  const agent = createAgent({ model: server.model(modelName), registry: fx.registry, policy: fx.policy });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  const first = await collect(agent.stream('look at the picture', { threadId: 't', cwd: fx.dir.path }));
  expect(ofType(first, 'error')).toEqual([]);
  const second = await collect(agent.stream('and what colour was it?', { threadId: 't', cwd: fx.dir.path }));
  expect(ofType(second, 'error')).toEqual([]);
  return { server, agent, first };
}

describe('images that tools return', () => {
  it('reach a model that sees images as an image after the tool result, and only in that round', async () => {
    const { server, agent, first } = await run('gpt-4o');
    expect(server.requests).toHaveLength(3);
    const [, withResult, later] = server.requests;
    // The tool result is text (OpenAI's chat API takes no image there); the image follows it from the user.
    const [tool, user] = withResult?.messages.slice(-2) ?? [];
    expect(tool).toMatchObject({ role: 'tool', content: 'Image file "dot.png": image/png, 3 bytes.' });
    expect(user?.role).toBe('user');
    expect(user?.content).toEqual([
      { type: 'text', text: `The image returned by tool call ${tool?.tool_call_id}:` },
      { type: 'image_url', image_url: { url: DATA_URL } },
    ]);
    // The next turn names the image in the tool result and does not pay for it again.
    expect(imageUrls(later)).toEqual([]);
    expect(later?.messages.some((m) => m.content === 'Image file "dot.png": image/png, 3 bytes.')).toBe(true);
    // What the user sees and the checkpoint keeps: the text, with the image beside it (not in the text).
    expect(ofType(first, 'tool-end')[0]?.output).toBe('Image file "dot.png": image/png, 3 bytes.');
    const [stored] = await toolMessages(agent, 't');
    expect(stored?.content).toBe('Image file "dot.png": image/png, 3 bytes.');
    expect(stored?.artifact).toEqual({ birdieImages: [{ mimeType: 'image/png', data: 'AQID' }] });
  });

  it('are only named for a model that cannot see images', async () => {
    const { server } = await run('gpt-3.5-turbo');
    expect(server.requests).toHaveLength(3);
    expect(server.requests.flatMap(imageUrls)).toEqual([]);
    expect(server.requests[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Image file "dot.png": image/png, 3 bytes.',
    });
  });
});
