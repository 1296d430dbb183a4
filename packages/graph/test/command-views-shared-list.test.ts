import { describe, expect, it } from 'vitest';
import { type ApprovalRule, compileRules } from '../src/index.js';

// The shells and interpreters the rules look into are the code-taking table's (`@birdie/entrypoints`), the same list
// the template check uses: one the rules' own list left out runs a denied command as surely as `sh` does.

const deny: ApprovalRule = { effect: 'deny', pattern: 'run_bash(git push *)', source: { kind: 'user' } };
const decide = (command: string) =>
  compileRules([deny]).decide({ tool: { name: 'run_bash', raw: true }, args: { command } })?.effect;

describe('a deny rule looks into every shell and interpreter of the code-taking table', () => {
  it.each([
    "echo 'git push origin' | yash",
    "echo 'git push origin' | rbash",
    'echo \'os.execute("git push origin")\' | lua',
    'pypy3 -c "import os; os.system(\'git push origin\')"',
    'jruby -e \'system("git push origin")\'',
  ])('%s is denied', (command) => {
    expect(decide(command)).toBe('deny');
  });

  it('as before: sh, python3, node', () => {
    expect(decide("echo 'git push origin' | sh")).toBe('deny');
    expect(decide('python3 -c "import os; os.system(\'git push origin\')"')).toBe('deny');
    expect(decide("echo 'git push' | node")).toBe('deny');
  });
});
