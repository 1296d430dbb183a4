import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeOpenAi } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, OWNER, startHarness, stopStarted, telegramCore } from './harness.js';

const VOICE_KEY = 'sk-voice-key-never-logged';

let h: Harness | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await stopStarted(h, openai);
  h = undefined;
  openai = undefined;
});

const voiceUpdate = (harness: Harness) =>
  harness.api.message(OWNER, OWNER, '', {
    text: undefined,
    voice: { file_id: 'voice-1', file_unique_id: 'v1', duration: 2, mime_type: 'audio/ogg', file_size: 9 },
  });

describe('voice messages and files from Telegram', () => {
  it('transcribes a voice message through the OpenAI-compatible endpoint, then answers it', async () => {
    openai = new FakeOpenAi('what is the weather in Lyon');
    await openai.start();
    h = await startHarness({
      script: [{ match: 'weather in Lyon', text: 'Sunny in Lyon.' }],
      channels: { voice: { base_url: openai.url } },
      env: { BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { api } = h;
    api.addFile('voice-1', new TextEncoder().encode('OggS-fake'));
    api.push(voiceUpdate(h));
    await api.waitFor('the answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('Sunny in Lyon')),
    );
    await telegramCore(h).idle();
    const [request] = openai.requests;
    expect(openai.requests).toHaveLength(1);
    expect(request?.authorization).toBe(`Bearer ${VOICE_KEY}`);
    expect(request?.contentType).toMatch(/^multipart\/form-data/);
    expect(request?.body.toString()).toContain('OggS-fake');
    expect(request?.body.toString()).toContain('whisper-1');
    // The user sees what was heard.
    expect(api.messagesIn(OWNER)[0]?.text).toContain('what is the weather in Lyon');
  });

  it('says voice is not available when the vendor has no transcription', async () => {
    h = await startHarness({ script: [{ text: 'never' }] });
    const { api } = h;
    api.addFile('voice-1', new TextEncoder().encode('OggS-fake'));
    api.push(voiceUpdate(h));
    await api.waitFor('the reply', () => api.messagesIn(OWNER).find((m) => m.text.includes('not available')));
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });

  it('saves a file into the session workspace and tells the model; refuses one over the cap', async () => {
    h = await startHarness({
      script: [{ match: 'uploads/notes.txt', text: 'Got your notes.' }],
      channels: { max_file_bytes: 100 },
    });
    const { api } = h;
    api.addFile('doc-1', new TextEncoder().encode('my notes'));
    api.addFile('doc-2', new Uint8Array(500));
    api.push(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        caption: 'read this',
        document: { file_id: 'doc-1', file_unique_id: 'd1', file_name: '../notes.txt', file_size: 8 },
      }),
    );
    await api.waitFor('the answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('Got your notes')),
    );
    api.push(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        document: { file_id: 'doc-2', file_unique_id: 'd2', file_name: 'big.bin', file_size: 500 },
      }),
    );
    await api.waitFor('the refusal', () => api.messagesIn(OWNER).find((m) => m.text.includes('too large')));
    await telegramCore(h).idle();
    const workspace = join(h.setup.workspaces.root, 'alice');
    expect(await readFile(join(workspace, 'uploads', 'notes.txt'), 'utf8')).toBe('my notes');
    await expect(readFile(join(workspace, 'uploads', 'big.bin'))).rejects.toThrow();
    // Only the first message reached the model.
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
  });
});

describe('uploads stay inside the workspace', () => {
  it('refuses to save a file when uploads is a symlink to a folder outside the workspace', async () => {
    h = await startHarness({ script: [{ text: 'never' }] });
    const { api } = h;
    const workspace = join(h.setup.workspaces.root, 'alice');
    const outside = join(h.home, '..', 'outside');
    await mkdir(workspace, { recursive: true });
    await mkdir(outside);
    // What a sandboxed tool can do inside the workspace.
    await symlink(outside, join(workspace, 'uploads'));
    api.addFile('doc-1', new TextEncoder().encode('planted'));
    api.push(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        document: { file_id: 'doc-1', file_unique_id: 'd1', file_name: 'evil.sh', file_size: 7 },
      }),
    );
    // Either the refusal or (unsafe) the model's answer to the saved file.
    await api.waitFor('a reply', () => api.messagesIn(OWNER).length > 0);
    await telegramCore(h).idle();
    expect(await readdir(outside)).toEqual([]);
    expect(
      api
        .messagesIn(OWNER)
        .map((m) => m.text)
        .join('\n'),
    ).toContain('outside the workspace');
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});

describe('serve limits apply to chats', () => {
  it('refuses a turn and an upload while the workspace holds more than serve.limits.workspace_bytes', async () => {
    h = await startHarness({
      script: [{ text: 'never' }],
      settings: { serve: { limits: { workspace_bytes: 10_000 } } },
    });
    const { api } = h;
    const workspace = join(h.setup.workspaces.root, 'alice');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'big.bin'), new Uint8Array(20_000));
    api.push(api.message(OWNER, OWNER, 'hello'));
    await api.waitFor('a reply', () => api.messagesIn(OWNER).length > 0);
    await telegramCore(h).idle();
    api.addFile('doc-1', new TextEncoder().encode('my notes'));
    api.push(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        document: { file_id: 'doc-1', file_unique_id: 'd1', file_name: 'notes.txt', file_size: 8 },
      }),
    );
    await api.waitFor('a second reply', () => api.messagesIn(OWNER).length > 1);
    await telegramCore(h).idle();
    const replies = api.messagesIn(OWNER).map((m) => m.text);
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply).toContain('more than the server allows');
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
    await expect(readFile(join(workspace, 'uploads', 'notes.txt'))).rejects.toThrow();
  });

  it('a user whose workspace folder is a file: the chat is told it cannot be used, the log says which and why', async () => {
    h = await startHarness({ script: [{ text: 'never' }] });
    const { api } = h;
    await mkdir(h.setup.workspaces.root, { recursive: true });
    const folder = join(h.setup.workspaces.root, 'alice');
    await writeFile(folder, 'not a folder');
    api.push(api.message(OWNER, OWNER, 'hello'));
    await api.waitFor('a reply', () => api.messagesIn(OWNER).length > 0);
    await telegramCore(h).idle();
    const [reply] = api.messagesIn(OWNER).map((m) => m.text);
    expect(reply).toContain('your workspace cannot be used on this server');
    expect(reply).not.toContain(folder);
    expect(h.logs.join('\n')).toContain(
      `the workspace of user alice cannot be used: ${folder} is not a folder`,
    );
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });

  it('refuses a voice message over channels.max_file_bytes without downloading or transcribing it', async () => {
    openai = new FakeOpenAi('never heard');
    await openai.start();
    h = await startHarness({
      script: [{ text: 'never' }],
      channels: { voice: { base_url: openai.url }, max_file_bytes: 5 },
      env: { BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { api } = h;
    api.addFile('voice-1', new TextEncoder().encode('OggS-fake'));
    api.push(voiceUpdate(h)); // file_size 9
    await api.waitFor('a reply', () => api.messagesIn(OWNER).length > 0);
    await telegramCore(h).idle();
    expect(
      api
        .messagesIn(OWNER)
        .map((m) => m.text)
        .join('\n'),
    ).toContain('too large');
    expect(api.callsOf('getFile')).toEqual([]);
    expect(openai.requests).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});
