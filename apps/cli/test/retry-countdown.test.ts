import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('keys.json'));

describe('a rate-limited vendor in the REPL (compiled CLI, real terminal)', { timeout: 60_000 }, () => {
  it('counts the retry wait down where the spinner is, then shows the answer', async () => {
    const t = repl.start(['--skills-dir', TEST_SKILLS]);
    await t.expect('/help for commands');
    await t.submit('busy for three');
    // the vendor asked for 3 s (Retry-After): the line starts there and the seconds go down while it waits
    await t.expect('scripted is rate limiting (HTTP 429): retrying in 3 s, attempt 1 of 2 (Ctrl+C cancels)');
    await t.expect('retrying in 2 s, attempt 1 of 2');
    await t.expect('retrying in 1 s, attempt 1 of 2');
    await t.expect('Answered after three seconds.');
    // nothing of the wait is left on the screen once the answer is there
    expect(await t.screen()).not.toContain('retrying in');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });
});
