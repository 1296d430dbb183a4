import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../src/runtime.js';
import { sessionFromFlags } from '../src/session-from-flags.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/shout.json', import.meta.url));
const QUIET =
  "---\nname: quiet\ndescription: Off unless enabled.\nenabled_by_default: false\n---\n\n## Tools\n\n### hush\ndescription: Says nothing much.\nentrypoint: bash:printf 'shh\\n'\nschema: { type: object, properties: {} }\n";
const HELPER = '---\nname: helper\ndescription: Helps quietly.\nskills: [quiet]\n---\n\nHelp.\n';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A runtime over a fresh BIRDIE_HOME with a skill that is off by default and an agent that needs it. */
async function runtime(): Promise<Runtime> {
  const dir = await makeTempDir('birdie-flags-');
  cleanups.push(dir.cleanup);
  const home = join(dir.path, '.birdie');
  await mkdir(join(home, 'skills', 'quiet'), { recursive: true });
  await writeFile(join(home, 'skills', 'quiet', 'SKILL.md'), QUIET);
  await mkdir(join(home, 'agents'), { recursive: true });
  await writeFile(join(home, 'agents', 'helper.md'), HELPER);
  // The working folder is not the home folder: its `.birdie` would be a project folder, untrusted.
  const work = join(dir.path, 'work');
  await mkdir(work);
  const env = { PATH: process.env.PATH, HOME: dir.path, BIRDIE_HOME: home, USER: 'ada' };
  const io = {
    env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: SCRIPT },
    cwd: work,
    stderr: { write: () => true },
  };
  const rt = await openRuntime(io, {});
  cleanups.push(() => rt.close());
  return rt;
}

const enabled = (rt: Runtime, sessionId: string) =>
  rt.policy.allowedSkills(sessionId, rt.registry.current()).map((s) => s.name);

describe('the session a front end opens from its flags', () => {
  it('refuses an unknown skill or agent before any session is made', async () => {
    const rt = await runtime();
    await expect(sessionFromFlags(rt, { enable: ['qiuet'] }, undefined)).rejects.toThrow(
      /--enable: no skill "qiuet"\. Did you mean "quiet"\?/,
    );
    await expect(sessionFromFlags(rt, { agent: 'helpr' }, undefined)).rejects.toThrow(
      /--agent: no agent "helpr"/,
    );
    expect(await rt.store.sessions.list(rt.userId)).toEqual([]);
  });

  it("names what --agent's agent lacks, and a new session keeps --enable", async () => {
    const rt = await runtime();
    const first = await sessionFromFlags(rt, { agent: 'helper' }, undefined);
    expect(first.agent).toBe('helper');
    expect(first.gaps).toMatchObject({ agent: 'helper', off: ['quiet'] });
    expect(first.staleGrants).toEqual([]);
    const second = await sessionFromFlags(rt, { agent: 'helper', enable: ['quiet'] }, undefined);
    expect(second.session.id).not.toBe(first.session.id);
    expect(second.gaps).toBeUndefined();
    expect(enabled(rt, second.session.id)).toContain('quiet');
  });

  it('resumes the session named, with its grants, and without --agent no agent is chosen', async () => {
    const rt = await runtime();
    const made = await sessionFromFlags(rt, { enable: ['quiet'] }, undefined);
    const resumed = await sessionFromFlags(rt, {}, made.session.id);
    expect(resumed.session.id).toBe(made.session.id);
    expect(resumed.agent).toBeUndefined();
    expect(resumed.lastAgent).toBeUndefined(); // no turn yet: nobody spoke
    expect(enabled(rt, resumed.session.id)).toContain('quiet');
  });
});
