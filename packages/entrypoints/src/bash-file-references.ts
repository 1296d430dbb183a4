import { type FileReference, type OptionExposure, tokenize } from './bash-options.js';

/**
 * Values a program reads as the name of a file to send rather than as text. Quoting keeps a value one word, but
 * curl gives some words a meaning of their own: `-d @FILE` sends FILE, `-F name=<FILE` its content, `-b FILE`
 * (no `=`) reads cookies from FILE. A model value `@~/.ssh/id_rsa` in `curl -d {note}` would upload that key. Like
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
};

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
  const short = /^-[A-Za-z]*([dHFb])$/.exec(before);
  return short ? CURL[`-${short[1]}`] : undefined;
}

/** `-d {x}`, `-sd {x}`, `--data {x}`: the option is the word before. */
function previousRule(previous: string | undefined): Rule | undefined {
  if (previous === undefined) return undefined;
  if (previous.startsWith('--')) return CURL[previous];
  const short = /^-[A-Za-z]*([dHFb])$/.exec(previous);
  return short ? CURL[`-${short[1]}`] : undefined;
}
