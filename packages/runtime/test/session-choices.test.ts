import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { birdieHome } from '../src/paths.js';
import { chooseModel, reloadSkillSettings, typedTurnText } from '../src/session-choices.js';
import { createSession } from '../src/session-start.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a front end's choices for a session", () => {
  it('refuses a model that is neither a tier nor vendor:model, and resolves one that is', async () => {
    const rt = await tempRuntime({}, cleanups);
    expect(await chooseModel(rt, 'gpt')).toEqual({
      problem: '"gpt" is neither a tier (fast, default, strong) nor vendor:model (e.g. openai:gpt-4o-mini).',
    });
    expect(await chooseModel(rt, 'default')).toEqual({ name: rt.modelName });
  });

  it('takes the skill lists saved in the config file for the sessions it makes next', async () => {
    const rt = await tempRuntime({}, cleanups);
    const config = join(birdieHome(rt.io.env), 'config.json');
    await writeFile(config, JSON.stringify({ settings: { skills: { enable: ['a'], disable: ['b'] } } }));
    await reloadSkillSettings(rt, rt.io, {});
    expect(rt.config.settings.skills).toMatchObject({ enable: ['a'], disable: ['b'] });
    expect(rt.config.sources['skills.enable']).toContain(config);
  });

  it('attaches the files a message mentions, with a note for each', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    await writeFile(join(rt.cwd, 'notes.txt'), 'remember the milk\n');
    const turn = await typedTurnText(rt, session.id, 'read @notes.txt please');
    expect(turn.text).toContain('remember the milk');
    expect(turn.notes.length).toBe(1);
    expect(await typedTurnText(rt, session.id, 'no mentions')).toMatchObject({
      text: 'no mentions',
      notes: [],
    });
  });
});
