import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { readChangePreview } from '../src/change-preview.js';
import {
  agentOn,
  agentSetup,
  agentSpec,
  callTools,
  collect,
  ofType,
  skillsFixture,
  stringArg,
  toolSkill,
  useCleanups,
} from './helpers.js';

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

// A file tool with a preview that reads the file as it is and says what the call would write; `broken` has a
// preview that throws, `silent` declares `approval: never`.
const module = `
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
const at = (args, context) => join(context.cwd, args.path);
export async function save(args, context) {
  await writeFile(at(args, context), args.content);
  return 'saved';
}
export async function preview_save(args, context) {
  const before = await readFile(at(args, context), 'utf8').catch(() => null);
  return { changes: [{ kind: 'file', path: args.path, before, after: args.content }] };
}
export async function preview_throws() {
  throw new Error('cannot look at that');
}
export async function preview_text() {
  return 'not json';
}
`;

const files = {
  'edit/tools.mjs': module,
  'edit/SKILL.md': toolSkill('edit', [
    {
      name: 'save',
      entrypoint: 'node:tools.mjs#save',
      extra: 'preview: node:tools.mjs#preview_save\n',
      schema: stringArg('path', 'content'),
    },
    {
      name: 'broken',
      entrypoint: 'node:tools.mjs#save',
      extra: 'preview: node:tools.mjs#preview_throws\n',
      schema: stringArg('path', 'content'),
    },
    {
      name: 'wordy',
      entrypoint: 'node:tools.mjs#save',
      extra: 'preview: node:tools.mjs#preview_text\n',
      schema: stringArg('path', 'content'),
    },
    {
      name: 'silent',
      entrypoint: 'node:tools.mjs#save',
      extra: 'preview: node:tools.mjs#preview_save\napproval: never\n',
      schema: stringArg('path', 'content'),
    },
  ]),
};

describe('tools that declare a preview of their changes', () => {
  it('ask under the default mode, with the change computed from the file as it is when asked', async () => {
    const { fx, model, agent } = await setup(files);
    const target = join(fx.dir.path, 'a.txt');
    writeFileSync(target, 'old\n');
    model
      .respond(callTools([{ name: 'save', args: { path: 'a.txt', content: 'new\n' }, id: 'w1' }]))
      .respond(new AIMessage('ok'));
    const events = await collect(agent.stream('save it', { threadId: 't1' }));
    const [request] = ofType(events, 'approval-request')[0]?.requests ?? [];
    expect(request).toMatchObject({
      tool: 'save',
      reason: 'file-change',
      preview: { changes: [{ kind: 'file', path: 'a.txt', before: 'old\n', after: 'new\n' }] },
    });
    // Asking changed nothing; the pending question read back after the stop carries the same preview.
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    expect((await agent.getState('t1')).pendingApprovals[0]?.preview).toEqual(request?.preview);
    await collect(agent.resume('t1', { w1: { type: 'approve' } }));
    expect(readFileSync(target, 'utf8')).toBe('new\n');
  });

  it('shows a new file with no before, and a failing or malformed preview as an error', async () => {
    const { fx, model, agent } = await setup(files);
    model.respond(
      callTools([
        { name: 'save', args: { path: 'new.txt', content: 'hello' }, id: 'n1' },
        { name: 'broken', args: { path: 'b.txt', content: 'x' }, id: 'n2' },
        { name: 'wordy', args: { path: 'c.txt', content: 'x' }, id: 'n3' },
      ]),
    );
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const requests = ofType(events, 'approval-request')[0]?.requests ?? [];
    expect(requests.map((r) => r.preview)).toEqual([
      { changes: [{ kind: 'file', path: 'new.txt', before: null, after: 'hello' }] },
      { error: 'Error (call-failed): node:tools.mjs#preview_throws threw Error: cannot look at that' },
      { error: 'The preview did not return JSON ({"changes": [...]}).' },
    ]);
    expect(existsSync(join(fx.dir.path, 'new.txt'))).toBe(false);
  });

  it('run without asking under --approval never, with approval: never, or once approved for the session', async () => {
    const { fx, model, agent } = await setup(files);
    model
      .respond(callTools([{ name: 'save', args: { path: 'a.txt', content: '1' }, id: 'x1' }]))
      .respond(new AIMessage('ok'))
      .respond(callTools([{ name: 'silent', args: { path: 'b.txt', content: '2' }, id: 'x2' }]))
      .respond(new AIMessage('ok'))
      .respond(callTools([{ name: 'save', args: { path: 'c.txt', content: '3' }, id: 'x3' }]))
      .respond(new AIMessage('ok'))
      .respond(callTools([{ name: 'save', args: { path: 'd.txt', content: '4' }, id: 'x4' }]))
      .respond(new AIMessage('ok'));
    const never = await collect(agent.stream('one', { threadId: 't1', approval: 'never' }));
    expect(ofType(never, 'approval-request')).toEqual([]);
    const silent = await collect(agent.stream('two', { threadId: 't1' }));
    expect(ofType(silent, 'approval-request')).toEqual([]);
    await collect(agent.stream('three', { threadId: 't1' }));
    await collect(agent.resume('t1', { x3: { type: 'approve', scope: 'session' } }));
    const granted = await collect(agent.stream('four', { threadId: 't1' }));
    expect(ofType(granted, 'approval-request')).toEqual([]);
    expect(ofType(granted, 'tool-approved').map((e) => e.id)).toEqual(['x4']);
    for (const [name, content] of [
      ['a.txt', '1'],
      ['b.txt', '2'],
      ['c.txt', '3'],
      ['d.txt', '4'],
    ])
      expect(readFileSync(join(fx.dir.path, name!), 'utf8')).toBe(content);
  });
});

describe('an agent that pre-approves a file tool', () => {
  it('runs it without asking (unattended runs), while mode always still asks', async () => {
    const fx = await skillsFixture(files);
    cleanups.push(() => fx.dir.cleanup());
    const { fakeModel } = await import('@langchain/core/testing');
    const model = fakeModel()
      .respond(callTools([{ name: 'save', args: { path: 'a.txt', content: 'x' }, id: 'p1' }]))
      .respond(new AIMessage('ok'))
      .respond(callTools([{ name: 'save', args: { path: 'b.txt', content: 'y' }, id: 'p2' }]));
    const agent = agentOn(cleanups, fx, model, [
      agentSpec('writer', { body: 'You write.', approve: ['save'] }),
    ]);
    const lifted = await collect(agent.stream('one', { threadId: 't1', agent: 'writer' }));
    expect(ofType(lifted, 'approval-request')).toEqual([]);
    expect(readFileSync(join(fx.dir.path, 'a.txt'), 'utf8')).toBe('x');
    const always = await collect(
      agent.stream('two', { threadId: 't1', agent: 'writer', approval: 'always' }),
    );
    expect(ofType(always, 'approval-request')[0]?.requests[0]?.reason).toBe('mode-always');
  });
});

describe('readChangePreview', () => {
  it('keeps folders and notes, and leaves out texts past the size limit', () => {
    const big = 'x'.repeat(300 * 1024);
    expect(
      readChangePreview(
        JSON.stringify({
          changes: [
            { kind: 'folder', path: 'src/new' },
            { kind: 'file', path: 'big.bin', before: big, after: `${big}y` },
            { kind: 'file', path: 'img.png', note: 'binary file' },
          ],
        }),
      ),
    ).toEqual({
      changes: [
        { kind: 'folder', path: 'src/new' },
        { kind: 'file', path: 'big.bin', note: 'too large to show' },
        { kind: 'file', path: 'img.png', note: 'binary file' },
      ],
    });
    expect(readChangePreview('{"changes": 3}')).toEqual({
      error: 'The preview did not return {"changes": [...]}.',
    });
    expect(readChangePreview('{"changes": [{"kind": "link", "path": "x"}]}')).toEqual({
      error: 'A change in the preview has an unknown kind for x.',
    });
  });
});
