import { join } from 'node:path';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { describe, expect, it } from 'vitest';
import { rejection, useTempDir } from '../../test/helpers.js';
import { createChatModel } from '../create-chat-model.js';
import { resolveProviderConfig } from '../resolve-config.js';
import { loadScript } from './load-script.js';
import { ScriptedChatModel } from './scripted-model.js';

const dir = useTempDir('birdie-providers-script-');

describe('loadScript', () => {
  it('loads an object script and a bare array', async () => {
    const object = await dir.file(
      'object.json',
      JSON.stringify({ stream: false, replies: [{ match: 'hi', text: 'Hello!' }] }),
    );
    expect(await loadScript(object)).toEqual({ stream: false, replies: [{ match: 'hi', text: 'Hello!' }] });
    const array = await dir.file('array.json', JSON.stringify([{ text: 'a' }]));
    expect(await loadScript(array)).toEqual({ replies: [{ text: 'a' }] });
  });

  it('reports an unreadable script with its path', async () => {
    const path = join(dir.path, 'nope.json');
    const error = await rejection(loadScript(path));
    expect(error).toMatchObject({ code: 'script-unreadable', file: path });
    expect(error.message).toBe(`Cannot read script ${path} (ENOENT)`);
  });

  it('reports JSON errors with line and column, and schema errors with the field', async () => {
    const broken = await dir.file(
      'broken.json',
      '[\n  { "text": "a" },\n  { "text": "b" }\n  { "text": "c" }\n]\n',
    );
    const syntax = await rejection(loadScript(broken));
    expect(syntax).toMatchObject({ code: 'script-invalid', file: broken, line: 4, column: 3 });
    expect(syntax.message).toBe(
      `Invalid JSON in script ${broken} at line 4, column 3: expected ',' or ']' after array element`,
    );

    const wrong = await dir.file(
      'wrong.json',
      JSON.stringify({ replies: [{ text: 'a' }, { tool_calls: [] }] }),
    );
    const schema = await rejection(loadScript(wrong));
    expect(schema).toMatchObject({ code: 'script-invalid', file: wrong, field: 'replies.1.tool_calls' });
    expect(schema.message).toBe(`Invalid script ${wrong}: replies.1.tool_calls must not be empty`);
  });
});

describe('vendor "scripted" through the config', () => {
  it('builds a ScriptedChatModel from LLM_SCRIPT and reports the script path when exhausted', async () => {
    const path = await dir.file('demo.json', JSON.stringify({ replies: [{ text: 'Only once.' }] }));
    const { config } = await resolveProviderConfig({ env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: path } });
    const model = await createChatModel(config);
    expect(model).toBeInstanceOf(BaseChatModel);
    expect(model).toBeInstanceOf(ScriptedChatModel);
    expect(model._llmType()).toBe('scripted');
    expect((await model.invoke('hi')).content).toBe('Only once.');
    const error = await rejection(model.invoke('again'));
    expect(error.message).toBe(
      `Script ${path} is exhausted: all 1 replies were used (last human message: "again")`,
    );
  });
});
