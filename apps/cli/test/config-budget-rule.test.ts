import { afterEach, beforeEach, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (scale) #11: `config set tool_budget_chars 999` said "must be a number of characters" — 999 is
// one — without the rule the value breaks (a whole number ≥ 1000). Each refusal says the rule it broke.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });

it('config set refuses tool budgets with the rule they break', { timeout: 90_000 }, async () => {
  const low = await cli(['config', 'set', 'tool_budget_chars', '999']);
  expect(low.code).not.toBe(0);
  expect(low.stderr).toContain('settings.tool_budget_chars must be at least 1000 characters');
  const part = await cli(['config', 'set', 'tool_budget_chars', '1500.5']);
  expect(part.stderr).toContain('settings.tool_budget_chars must be a whole number of characters');
  const tools = await cli(['config', 'set', 'tool_budget', '2.5']);
  expect(tools.stderr).toContain('settings.tool_budget must be a whole number of tools');
  const ok = await cli(['config', 'set', 'tool_budget_chars', '1000']);
  expect(ok.code, ok.stderr).toBe(0);
});
