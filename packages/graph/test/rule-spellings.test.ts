import { describe, expect, it } from 'vitest';
import { type ApprovalRule, compileRules, describeMiss } from '../src/index.js';

const SHELL = { name: 'run_bash', skill: 'shell', raw: true };
const rule = (effect: ApprovalRule['effect'], pattern: string): ApprovalRule => ({
  effect,
  pattern,
  source: { kind: 'user' },
});
const decide = (rules: ApprovalRule[], command: string) =>
  compileRules(rules).decide({ tool: SHELL, args: { command } })?.effect;

describe('a deny or ask rule matches every spelling that runs the command', () => {
  const push = [rule('deny', 'run_bash(git push *)')];
  it.each([
    'git push origin main',
    'git -C . push',
    'git --no-pager push',
    'git -c a.b=c push',
    'git --git-dir=.git push',
    'git --git-dir .git --work-tree . push',
    'env git push',
    'env -i A=1 git push',
    'timeout 60 git push',
    'timeout -s KILL 60 git push',
    'nice git push',
    'nice -n 5 git push',
    'nohup git push',
    'sudo -u me git push',
    'xargs git push',
    'env timeout 5 /usr/bin/git -C . push',
    '/usr/bin/git push',
    "sh -c 'git push'",
    "bash -lc 'cd x && git push'",
    'git push --receive-pack=evil origin',
    'echo ok && git push',
  ])('denies %s', (command) => {
    expect(decide(push, command)).toBe('deny');
  });

  it.each([
    'rm -rf $(pwd)',
    '\\rm x',
    'command rm x',
    'x=1; rm x',
    'echo $(rm x)',
    "'r'm x",
    'exec rm x',
    'r\\m x',
  ])('denies the unreadable %s rather than asking (--yes would approve a question)', (command) => {
    expect(decide([rule('deny', 'run_bash(rm *)')], command)).toBe('deny');
  });

  // Found by running the report's repro on the fix under `--yes`: text run as code, a program named by a variable,
  // and code a shell or interpreter reads from its input still pushed.
  it.each([
    "eval 'git push origin x'",
    'eval git push',
    'g=git; $g push origin x',
    '$GIT push',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    '${G:-git} push',
    "echo 'git push origin x' | sh",
    "printf 'git push' | bash -s",
    'bash <<< "git push"',
    `python3 -c "import os; os.system('git push')"`,
    `node -e "require('child_process').execSync('git push')"`,
    'git bisect run git push',
    'npm exec -- git push',
    'find . -exec git push ;',
    'time -p git push',
    'sh -c "eval git push"',
  ])('denies %s: the program or its code cannot be read, so a deny rule fails closed', (command) => {
    expect(decide(push, command)).toBe('deny');
  });

  it('an unreadable line no deny rule could run still asks; other commands stay undecided', () => {
    expect(decide([rule('deny', 'run_bash(rm *)')], 'echo $HOME')).toBe('ask');
    expect(decide(push, 'git status')).toBeUndefined();
    expect(decide(push, 'git log --grep push')).toBeUndefined();
    expect(decide(push, 'env git status')).toBeUndefined();
  });

  it('ask rules see the same spellings', () => {
    expect(decide([rule('ask', 'run_bash(git push *)')], 'timeout 9 git -C . push')).toBe('ask');
  });

  it('an allow rule still matches only the words as written', () => {
    const allow = [rule('allow', 'run_bash(git status *)')];
    expect(decide(allow, 'git status')).toBe('allow');
    expect(decide(allow, '/usr/bin/git status')).toBeUndefined();
    expect(decide(allow, 'env git status')).toBeUndefined();
    expect(decide(allow, 'git -C . status')).toBeUndefined();
  });
});

describe("an allow rule's `*` never covers a program the command runs", () => {
  it.each([
    ['run_bash(git *)', 'git bisect run rm -rf /tmp/x'],
    ['run_bash(git *)', 'git bisect run ./evil.sh'],
    ['run_bash(git *)', 'git bisect run bash'],
    ['run_bash(git bisect *)', 'git bisect run id'],
    ['run_bash(npm *)', 'npm exec -- touch x'],
    ['run_bash(npm *)', 'npm x id'],
    ['run_bash(npm *)', 'npm exec --yes cowsay'],
    ['run_bash(npm *)', 'npm init foo'],
    ['run_bash(npm *)', 'npm create vite'],
    ['run_bash(pnpm *)', 'pnpm exec id'],
    ['run_bash(pnpm *)', 'pnpm dlx id'],
    ['run_bash(yarn *)', 'yarn exec id'],
    ['run_bash(yarn *)', 'yarn dlx id'],
    ['run_bash(npm *)', 'npm run build --script-shell=./x'],
    ['run_bash(test *)', "test -v 'a[$(id)]'"],
    ['run_bash(test -f *)', "test -f x -o -v 'a[$(id)]'"],
    ['run_bash([ *)', "'[' -v 'a[$(id)]' ']'"],
    ['run_bash(test *)', "test -R 'a[$(id)]'"],
    ['run_bash(find *)', "find . -exec rm x ';'"],
  ])('%s does not allow %s, and the miss says why', (pattern, command) => {
    const set = compileRules([rule('allow', pattern)]);
    const call = { tool: SHELL, args: { command } };
    expect(set.decide(call)).toBeUndefined();
    const miss = set.miss(call);
    expect(miss?.runsCode).toBe(true);
    expect(describeMiss(miss!)).toContain('runs another program or code');
  });

  it.each([
    ['run_bash(git *)', 'git bisect start HEAD v1'],
    ['run_bash(git bisect run make test)', 'git bisect run make test'],
    ['run_bash(npm *)', 'npm test'],
    ['run_bash(npm *)', 'npm run build -- --watch'],
    ['run_bash(pnpm *)', 'pnpm install --frozen-lockfile'],
    ['run_bash(test *)', 'test -f package.json -o -d src'],
    ['run_bash([ *)', "'[' -n x ']'"],
  ])('%s still allows %s', (pattern, command) => {
    expect(decide([rule('allow', pattern)], command)).toBe('allow');
  });
});
