import { afterEach, describe, expect, it } from 'vitest';
import { readTrust } from '../src/trust.js';
import { answerTrust, trustRisks, unansweredWorkspaces } from '../src/trust-answers.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LOUD =
  "---\nname: loud\ndescription: Shouts.\n---\n\n## Tools\n\n### yell\ndescription: Yells.\nentrypoint: bash:printf 'HEY\\n'\nschema: { type: object, properties: {} }\n";
const PROJECT = { '.birdie/skills/loud/SKILL.md': LOUD };

describe("answers about a project's folder", () => {
  it('asks about an untrusted folder until answered or put off, and says what trusting lets in', async () => {
    const rt = await tempRuntime({}, cleanups, PROJECT);
    const [workspace, ...more] = unansweredWorkspaces(rt, new Set());
    expect(more).toEqual([]);
    expect(workspace?.skills.map((s) => s.name)).toEqual(['loud']);
    expect(unansweredWorkspaces(rt, new Set([workspace!.digest]))).toEqual([]);
    expect(trustRisks(workspace!)).toEqual(['their tools and MCP servers can run commands on this machine']);
  });

  it('a refusal is stored and not asked about again', async () => {
    const rt = await tempRuntime({}, cleanups, PROJECT);
    const [workspace] = unansweredWorkspaces(rt, new Set());
    await answerTrust(rt, workspace!, 'refused');
    expect(unansweredWorkspaces(rt, new Set())).toEqual([]);
    expect((await readTrust(rt.store)).get(workspace!.path)).toMatchObject({ decision: 'refused' });
  });

  it('trusting loads the folder at the next reload', async () => {
    const rt = await tempRuntime({}, cleanups, PROJECT);
    const [workspace] = unansweredWorkspaces(rt, new Set());
    await answerTrust(rt, workspace!, 'trusted');
    await rt.registry.reload();
    expect(rt.registry.current().skills.map((s) => s.name)).toContain('loud');
    expect(rt.registry.current().untrusted).toEqual([]);
  });
});
