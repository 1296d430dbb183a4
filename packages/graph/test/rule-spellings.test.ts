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

  // Reported by an exploratory run (stop 68) under `--yes`: each of these removed the file or pushed.
  it.each([
    ['run_bash(rm *)', '{rm,victim}'],
    ['run_bash(rm *)', '/bin/r? victim'],
    ['run_bash(rm *)', '/usr/bin/r[m] victim'],
    ['run_bash(rm *)', 'r* victim'],
    ['run_bash(rm *)', '"$(echo rm)" victim'],
    ['run_bash(rm *)', '`echo rm` victim'],
    ['run_bash(rm *)', 'coproc rm victim'],
    ['run_bash(rm *)', `eval "$(printf 'r''m victim')"`],
    ['run_bash(git push *)', 'git {push,origin,master}'],
    ['run_bash(git push *)', 'git -c alias.p=push p origin master'],
    ['run_bash(git push *)', 'git -c alias.p="!git push origin master" p'],
    ['run_bash(rm *)', "git -c alias.x='!rm victim' x"],
    ['run_bash(git push *)', 'git -c alias.p=push -C . p'],
    // Found by the review of the fix: nesting, expansions inside a word or after it, runners, sequences, brackets.
    ['run_bash(rm *)', 'echo `echo \\`rm -rf x\\``'],
    ['run_bash(rm *)', 'echo $(echo $(echo $(echo $(echo $(rm -rf x)))))'],
    ['run_bash(rm *)', 'r$(true)m -rf x'],
    ['run_bash(rm *)', 'r`true`m -rf x'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    ['run_bash(rm *)', 'r${e}m -rf x'],
    ['run_bash(git push *)', 'git $(echo push) origin'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    ['run_bash(git push *)', 'git ${P:-push} origin'],
    ['run_bash(git push *)', '$(echo git push) origin main'],
    ['run_bash(rm *)', 'sudo r? -rf x'],
    ['run_bash(rm *)', 'env /bin/r[m] -rf x'],
    ['run_bash(rm *)', 'timeout 5 "$(echo rm)" -rf x'],
    ['run_bash(rm *)', 'r{m..m} -rf x'],
    ['run_bash(rm *)', 'echo {a,b} {a,b} {a,b} {a,b} {a,b} {a,b} {a,b} {a,b}; r{m,} -rf x'],
    ['run_bash(rm *)', '/usr/bin/[!a]m -rf x'],
    ['run_bash(git push *)', 'git -c alias.a=b -c alias.b=push a origin'],
    ['run_bash(git push *)', `git -c 'alias.p="push"' p origin`],
  ])('%s denies %s: a brace, a glob, a substitution or an alias names the program', (pattern, command) => {
    expect(decide([rule('deny', pattern)], command)).toBe('deny');
  });

  it('a line built to make a regular expression backtrack is decided (the brace reading is linear)', () => {
    const rm = [rule('deny', 'run_bash(rm *)')];
    expect(decide(rm, `${'a'.repeat(20_000)}{${','.repeat(20_000)}`)).toBe('ask');
    expect(decide(rm, `{${','.repeat(20_000)}}${'x'.repeat(20_000)}`)).toBe('ask');
    expect(decide(rm, `echo ${'{a,b}'.repeat(2_000)} $(date)`)).toBe('ask');
  });

  it('an expansion among the arguments of another command is not taken for the denied one', () => {
    expect(decide(push, 'git log --since=$(date)')).toBe('ask');
    expect(decide([rule('deny', 'run_bash(rm *)')], 'echo $HOME')).toBe('ask');
  });

  it('a glob or brace that cannot name the denied program is not denied for it', () => {
    const rm = [rule('deny', 'run_bash(rm *)')];
    expect(decide(rm, '/bin/l? victim')).toBe('ask');
    expect(decide(rm, '{ls,victim}')).toBe('ask');
    expect(decide(rm, 'ls *.txt')).toBe('ask');
    expect(decide(push, 'git -c alias.p=status p')).toBeUndefined();
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

// Reported by an exploratory run (stop 68): `run_bash(git reflog *)` let `git reflog --output=P` write P. Every git
// command below writes its `--output` file (checked against git 2.39 in a scratch repository).
describe("an allow rule's `*` never covers a git command's --output", () => {
  it.each([
    ['run_bash(git reflog *)', 'git reflog --output=P'],
    ['run_bash(git reflog *)', 'git reflog show --output=P'],
    ['run_bash(git stash *)', 'git stash list --output=P'],
    ['run_bash(git stash *)', 'git stash show -p --output=P'],
    ['run_bash(git shortlog *)', 'git shortlog --output=P HEAD'],
    ['run_bash(git rev-list *)', 'git rev-list --output=P HEAD'],
    ['run_bash(git blame *)', 'git blame --output=P f'],
    ['run_bash(git annotate *)', 'git annotate --output P f'],
    ['run_bash(git cherry-pick *)', 'git cherry-pick --output=P HEAD'],
    ['run_bash(git revert *)', 'git revert --output=P HEAD'],
    ['run_bash(git fast-export *)', 'git fast-export --output=P HEAD'],
    ['run_bash(git bugreport *)', 'git bugreport -o P'],
    ['run_bash(git diagnose *)', 'git diagnose --output-directory=P'],
  ])('%s does not allow %s', (pattern, command) => {
    expect(decide([rule('allow', pattern)], command)).toBeUndefined();
  });

  it('the same commands without it are still allowed', () => {
    expect(decide([rule('allow', 'run_bash(git reflog *)')], 'git reflog -n 5')).toBe('allow');
    expect(decide([rule('allow', 'run_bash(git stash *)')], 'git stash list')).toBe('allow');
    expect(decide([rule('allow', 'run_bash(git blame *)')], 'git blame -L 1,5 f')).toBe('allow');
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
