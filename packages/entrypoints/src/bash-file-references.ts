import { type FileReference, type OptionExposure, tokenize } from './bash-options.js';

/**
 * Values a program reads as the name of a file to send rather than as text. Quoting keeps a value one word, but
 * curl gives some words a meaning of their own: `-d @FILE` sends FILE, `-F name=<FILE` its content, `-b FILE`
 * (no `=`) reads cookies from FILE, `-w @FILE` prints FILE as its output format; `-T FILE` uploads FILE and `-K FILE`
 * reads options from it whatever the value. A model value `@~/.ssh/id_rsa` in `curl -d {note}` would upload that key. Like
 * a leading dash, such a value is refused at run time (bad-argument) where the template exposes it; the author
 * sends text as is with curl's raw forms (`--data-raw`, `--form-string`) or by writing the name part (`-F n={x}`).
 */

type Rule = FileReference;

const startsWithAt = (value: string) => value.startsWith('@');
const AT = (option: string, instead: string): Rule => ({ option, reads: startsWithAt, instead });
/** `-F name=@file` / `name=<file`: given the whole word, the part after the first `=`. */
const FORM = (option: string): Rule => ({
  option,
  reads: (value) => /^([^=]*=)?[@<]/.test(value),
  instead: '--form-string',
});
/** `--data-urlencode [name]@file`. */
const URLENCODE = (option: string): Rule => ({
  option,
  reads: (value) => /^[^=]*@/.test(value),
  instead: `${option} name=…`,
});
/** `-b NAME=VALUE` is a cookie, any other word a cookie file. */
const COOKIE = (option: string): Rule => ({
  option,
  reads: (value) => !value.includes('='),
  instead: `${option} name=…`,
});

/** `-T FILE`, `-K FILE`: the value is always a file's name. */
const NAMED = (option: string, file: string, instead: string): Rule => ({
  option,
  reads: () => true,
  file,
  instead,
  named: true,
});
const UPLOAD = (option: string) =>
  NAMED(
    option,
    'to upload it',
    'write the file in the template, or send the value as text with --data-binary @-',
  );
const CONFIG = (option: string) =>
  NAMED(option, 'as options, any of them', 'write the options in the template');
/** `-w @FILE` reads its output format from FILE and prints it. */
const WRITE_OUT = (option: string): Rule => ({
  option,
  reads: startsWithAt,
  file: 'a file to print',
  instead: `${option} and a format that does not start with @`,
});

const CURL: Readonly<Record<string, Rule>> = {
  '-d': AT('-d', '--data-raw'),
  '--data': AT('--data', '--data-raw'),
  '--data-ascii': AT('--data-ascii', '--data-raw'),
  '--data-binary': AT('--data-binary', '--data-raw'),
  '--json': AT('--json', '--data-raw and a Content-Type header'),
  '-H': AT('-H', 'a header name written in the template (-H "X-Note: …")'),
  '--header': AT('--header', 'a header name written in the template (--header "X-Note: …")'),
  '--proxy-header': AT('--proxy-header', 'a header name written in the template'),
  '-F': FORM('-F'),
  '--form': FORM('--form'),
  '--data-urlencode': URLENCODE('--data-urlencode'),
  '--url-query': URLENCODE('--url-query'),
  '--variable': URLENCODE('--variable'),
  '-b': COOKIE('-b'),
  '--cookie': COOKIE('--cookie'),
  '-T': UPLOAD('-T'),
  '--upload-file': UPLOAD('--upload-file'),
  '-K': CONFIG('-K'),
  '--config': CONFIG('--config'),
  '-w': WRITE_OUT('-w'),
  '--write-out': WRITE_OUT('--write-out'),
};

/**
 * curl's short options that take a value: in a bundle (`-sd`), letters before one of `CURL`'s must not be among
 * them (`-ow` is `-o w`, not `-w`).
 */
const VALUE_LETTERS = 'AbcCdDeEFHKmoPQrtTuUwxXyYz';
const FLAGS = `[${[...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((c) => !VALUE_LETTERS.includes(c)).join('')}]*`;
/** The short options of `CURL`, as the last letter of a bundle (`-sd`, `-sT`). */
const SHORT = new RegExp(`^-${FLAGS}([dHFbTKw])$`);
/** A word that is the value of `-T`/`-K` glued to it, up to the placeholder (`-T./`, `--config=`). */
const NAMED_GLUED = new RegExp(`^(?:-${FLAGS}([TK])|(--upload-file|--config)=)`);

/**
 * `command` is the source of the current simple command up to the placeholder (see bash-command.ts). Returns the
 * exposure to record when the placeholder's value would be read as a file reference, else undefined.
 */
export function fileReferenceExposure(command: string): OptionExposure | undefined {
  const { tokens, partial } = tokenize(command.replace(/\\\n/g, ''));
  if (tokens.at(-1)?.op) return undefined;
  const curl = tokens.findIndex((t) => !t.op && t.text.replace(/^.*\//, '') === 'curl');
  if (curl === -1) return undefined;
  const args = tokens.slice(curl + 1);
  if (args.some((t) => !t.op && t.text === '--')) return undefined; // operands only: URLs
  // `partial` is the value's word up to the value (another value before it shows as \u0001)
  const before = partial;
  const previous = args.filter((t) => !t.op).at(-1)?.text;
  // `-T FILE`, `-K FILE`: the whole word is a file's name, wherever in it the value stands (`-T ./{x}`).
  const named = namedRule(before) ?? (previousRule(previous)?.named ? previousRule(previous) : undefined);
  if (named) return { command: 'curl', fileReference: named };
  const rule =
    gluedRule(before) ??
    (before === '' || /^[^-=@<][^=]*=$/.test(before) ? previousRule(previous) : undefined);
  if (!rule) return undefined;
  // after a literal `name=` only a form reads the rest as a file (`-F n=@f`); `-d n=@f` sends the text
  if (before.endsWith('=') && !before.startsWith('-') && rule.instead !== '--form-string') return undefined;
  // `-F n={x}`: the value is the content, which names a file when it starts with @ or <
  const content = before.endsWith('=') && !before.startsWith('-');
  return {
    command: 'curl',
    fileReference: content ? { ...rule, reads: (value) => /^[@<]/.test(value) } : rule,
  };
}

/** `-d{x}`, `--data={x}`, `-sd{x}`: the option and the value in one word. */
function gluedRule(before: string): Rule | undefined {
  const long = /^(--[a-z-]+)=$/.exec(before);
  if (long) return CURL[long[1]!];
  const short = SHORT.exec(before);
  return short ? CURL[`-${short[1]}`] : undefined;
}

/** `-T{x}`, `-sT./{x}`, `--config=./{x}`: a value glued to an option whose value is always a file's name. */
function namedRule(before: string): Rule | undefined {
  const glued = NAMED_GLUED.exec(before);
  if (!glued) return undefined;
  return glued[1] ? CURL[`-${glued[1]}`] : CURL[glued[2]!];
}

/** `-d {x}`, `-sd {x}`, `--data {x}`: the option is the word before. */
function previousRule(previous: string | undefined): Rule | undefined {
  if (previous === undefined) return undefined;
  if (previous.startsWith('--')) return CURL[previous];
  const short = SHORT.exec(previous);
  return short ? CURL[`-${short[1]}`] : undefined;
}
