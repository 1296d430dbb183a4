import { describe, expect, it } from 'vitest';
import { dangerousArguments, dangerousOption, isDangerousOption } from './code-taking-argv.js';
import { CODE_TAKING_PROGRAMS, programEntry } from './code-taking-programs.js';

/** The danger of the word at `index` of the command line (split on blanks), as `kind option`. */
function at(line: string, index: number): string | undefined {
  const found = dangerousOption(line.split(' '), index);
  return found && `${found.danger} ${found.option}`;
}

describe('dangerousOption', () => {
  it.each([
    // code-taking options, as written, bundled, glued and abbreviated
    ['perl -e print', 1, 'code -e'],
    ['perl -ne print', 1, 'code -e'],
    ['perl -pi.bak -e s/a/b/ f', 1, 'file-write -i'],
    ['perl -pie s/a/b/ f', 1, 'file-write -i'],
    ['python3 -c print(1)', 1, 'code -c'],
    ['python3.12 -c print(1)', 1, 'code -c'],
    ['/usr/bin/python3 -m http.server', 1, 'code -m'],
    ['node --eval=1', 1, 'code --eval'],
    ['node -p 1', 1, 'code -p'],
    ['ruby -e 1', 1, 'code -e'],
    ['bash -c true', 1, 'code -c'],
    ['bash -ec true', 1, 'code -c'],
    ['sh -lc true', 1, 'code -c'],
    ['env -S sh', 1, 'code -S'],
    ['env --split-string=sh', 1, 'code --split-string'],
    ['awk -f prog.awk', 1, 'code -f'],
    ['sed -i s/a/b/ f', 1, 'file-write -i'],
    ['sed -n -e p', 2, 'code -e'],
    ['sed --expr=p', 1, 'code --expression'],
    // file-writing options
    ['curl -o out https://x', 1, 'file-write -o'],
    ['curl -sSLo out https://x', 1, 'file-write -o'],
    ['curl --output=out https://x', 1, 'file-write --output'],
    ['curl -O https://x', 1, 'file-write -O'],
    ['curl --engine ./e.so https://x', 1, 'code --engine'],
    ['sort -o out in', 1, 'file-write -o'],
    ['tee a b', 2, 'file-write operand'],
    ['dd if=a of=b', 2, 'file-write of'],
    // git: global options, subcommand options, abbreviations, subcommands
    ['git -c core.pager=sh log', 1, 'code -c'],
    ['git log --output=/home/u/.bashrc', 2, 'file-write --output'],
    ['git log --outp=/home/u/.bashrc', 2, 'file-write --output'],
    ['git diff --output x', 2, 'file-write --output'],
    ['git reflog --output=x', 2, 'file-write --output'],
    ['git blame --output x f', 2, 'file-write --output'],
    ['git bugreport -o dir', 2, 'file-write -o'],
    ['git fetch --upload-pack=sh origin', 2, 'code --upload-pack'],
    ['git clone -u sh url', 2, 'code -u'],
    ['git push --receive-pack=x', 2, 'code --receive-pack'],
    ['git rebase -x make main', 2, 'code -x'],
    ['git rebase --exec=make main', 2, 'code --exec'],
    ['git config core.pager less', 1, 'code config'],
    ['git -C dir config core.pager less', 3, 'code config'],
    ['git submodule foreach make', 3, 'code operand'],
    // find: its actions, and the command it runs
    ['find . -name x -exec rm {} ;', 4, 'code -exec'],
    ['find . -delete', 2, 'file-write -delete'],
    ['find . -fprint out', 2, 'file-write -fprint'],
    ['find . -exec sh -c x ;', 4, 'code -c'],
    // runners: the command they run is read with its own entry
    ['xargs -I{} sh -c x', 3, 'code -c'],
    ['xargs -n1 perl -e x', 3, 'code -e'],
    ['timeout 5 python3 -c x', 3, 'code -c'],
    ['env A=1 B=2 node -e x', 4, 'code -e'],
    ['sudo -u root bash -c x', 4, 'code -c'],
    ['nice -n 5 git -c a=b log', 4, 'code -c'],
    // tar, ssh, rsync
    ['tar --to-command=sh -xf a.tar', 1, 'code --to-command'],
    ['tar --checkpoint-action=exec=sh -cf a.tar d', 1, 'code --checkpoint-action'],
    ['tar xzf a.tgz', 1, 'file-write -f'],
    ['rsync -e sh a b', 1, 'code -e'],
    ['rsync -ave sh a b', 1, 'code -e'],
    ['ssh -o ProxyCommand=sh host', 1, 'code -o'],
    ['ssh host rm -rf /', 2, 'code operand'],
    ['vim +!sh f', 1, 'code +'],
    ['make CC=sh', 1, 'code operand'],
    ['awk {print} f', 1, 'code operand'],
    ['split --filter=sh in', 1, 'code --filter'],
    ['flock . -c x', 2, 'code -c'],
    ['nc -e sh host 1', 1, 'code -e'],
    ['strace -o log ls', 1, 'file-write -o'],
  ])('%s: word %i is %s', (line, index, expected) => {
    expect(at(line, index)).toBe(expected);
  });

  it.each([
    ['perl script.pl -e x', 2],
    ['python3 -c x -c y', 3],
    ['bash -c x -c', 3],
    ['git log -c', 2],
    ['git log --oneline', 2],
    ['git status --short', 2],
    ['curl -H -o https://x', 2],
    ['curl -- -o', 2],
    ['sed -n p f', 1],
    ['sed -e p f', 3],
    ['awk -f p.awk f', 3],
    ['ls -la', 1],
    ['grep -e x f', 1],
    ['xargs -n 1 echo', 3],
    ['find . -name x', 2],
    ['find . -name x -print', 4],
    ['timeout 5 ls -e', 3],
    ['sh script.sh -c', 2],
    ['command -v perl -e', 3],
  ])('%s: word %i is neither', (line, index) => {
    expect(isDangerousOption(line.split(' '), index)).toBe(false);
  });

  it('names where the code or path is: the next word, or the glued value', () => {
    expect(dangerousOption(['perl', '-e', 'CODE'], 1)).toMatchObject({ program: 'perl', valueIndex: 2 });
    expect(dangerousOption(['perl', '-eCODE'], 1)).toMatchObject({ gluedValue: 'CODE' });
    expect(dangerousOption(['git', 'log', '--output=F'], 2)).toMatchObject({
      program: 'git log',
      gluedValue: 'F',
    });
    expect(dangerousOption(['bash', '-ec', 'CODE'], 1)).toMatchObject({ valueIndex: 2 });
    expect(dangerousOption(['xargs', 'sh', '-c', 'C'], 2)).toMatchObject({ program: 'sh', valueIndex: 3 });
  });

  it('lists every dangerous argument of a command line, runners followed', () => {
    const found = dangerousArguments('find . -exec perl -e x ; -delete'.split(' '));
    expect(found.map((d) => `${d.program} ${d.option}`)).toEqual(['find -exec', 'perl -e', 'find -delete']);
  });
});

describe('the table', () => {
  it('finds programs by basename and without a trailing version', () => {
    expect(programEntry('/usr/bin/perl5.36')?.language).toBe('Perl');
    expect(programEntry('python3')?.language).toBe('Python');
    expect(programEntry('ls')).toBeUndefined();
  });

  it('names each program once, and every dangerous option says what it does', () => {
    const names = CODE_TAKING_PROGRAMS.flatMap((p) => p.names);
    expect(new Set(names).size).toBe(names.length);
    for (const program of CODE_TAKING_PROGRAMS)
      for (const option of program.options)
        if (option.danger) expect(option.what, program.names[0]).toBeTruthy();
  });
});

// Review finding: curl 8.3's `--expand-X` is X with variables expanded, so `--expand-output F` writes F and
// `--expand-config F` reads options from F; and curl 8.12's `--ssl-sessions F` rewrites F.
describe("curl's --expand- forms and its session file", () => {
  it.each([
    ['curl --expand-output out https://x', 1, 'file-write --expand-output'],
    ['curl --expand-output=out https://x', 1, 'file-write --expand-output'],
    ['curl --expand-outp out https://x', 1, 'file-write --expand-output'],
    ['curl --expand-config f https://x', 1, 'code --expand-config'],
    ['curl --expand-dump-header f https://x', 1, 'file-write --expand-dump-header'],
    ['curl --expand-etag-save f https://x', 1, 'file-write --expand-etag-save'],
    ['curl --ssl-sessions f https://x', 1, 'file-write --ssl-sessions'],
  ])('%s: word %i is %s', (line, index, expected) => {
    expect(at(line, index)).toBe(expected);
  });

  it('the value of --expand-data is not read as options', () => {
    expect(at('curl --expand-data -o https://x', 2)).toBeUndefined();
  });
});

// Defect: curl's `-w '%output{FILE}'` (and `%output{>>FILE}`) writes its format's output to FILE, but the table read
// -w only as taking a value, so an allow rule `run_bash(curl *)` matched it and no file was named as written.
describe("curl's -w %output{FILE}", () => {
  it.each([
    ['curl -w %output{/tmp/x}%{url} https://x', 1, 'file-write -w'],
    ['curl -sw%output{>>log}%{http_code} https://x', 1, 'file-write -w'],
    ['curl --write-out=%output{f} https://x', 1, 'file-write --write-out'],
    ['curl --write-o %output{f} https://x', 1, 'file-write --write-out'],
    ['curl --expand-write-out %output{f} https://x', 1, 'file-write --expand-write-out'],
    // a sibling: like -O, for every URL
    ['curl --remote-name-all https://x/.bashrc', 1, 'file-write --remote-name-all'],
    // review: a format read from a file or stdin, or a variable expanded into it, may hold %output{…} unseen
    ['curl -w @fmt https://x', 1, 'file-write -w'],
    ['curl -w @- https://x', 1, 'file-write -w'],
    ['curl --write-out=@fmt https://x', 1, 'file-write --write-out'],
    [
      'curl --variable f=%output{~/.bashrc}TEXT --expand-write-out {{f}} https://x',
      3,
      'file-write --expand-write-out',
    ],
  ])('%s: word %i is %s', (line, index, expected) => {
    expect(at(line, index)).toBe(expected);
  });

  it('names the files the format writes, not the format', () => {
    const found = dangerousOption(['curl', '-w', '%output{a}%{url}%output{>>b}', 'https://x'], 1);
    expect(found?.written).toEqual(['a', 'b']);
  });

  it('a format that writes no file is only a value', () => {
    expect(at('curl -w %{http_code} https://x', 1)).toBeUndefined();
    expect(at('curl -sSw%{url} https://x', 1)).toBeUndefined();
    expect(at('curl -w -o https://x', 2)).toBeUndefined();
  });
});
