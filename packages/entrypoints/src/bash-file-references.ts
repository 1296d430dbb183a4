import { type FileReference, type OptionExposure, tokenize } from './bash-options.js';
import { CURL_LONG_OPTIONS } from './curl-long-options.js';

/**
 * Values a program reads as the name of a file rather than as text. Quoting keeps a value one word, but curl gives
 * some words a meaning of their own: `-d @FILE` sends FILE, `-F name=<FILE` its content, `-b FILE` (no `=`) reads
 * cookies from FILE, `-w @FILE` prints FILE as its output format; `-T FILE` uploads FILE, `-K FILE` reads options
 * from it and `--cert FILE`, `--netrc-file FILE`, `--etag-compare FILE`, … read the file whatever the value, `-z` a
 * value that is not a date (for its modification time); curl 8.3's
 * `--variable %NAME` / `name@FILE` read an environment variable or a file that an `--expand-*` option's `{{name}}`
 * then sends. A model value `@~/.ssh/id_rsa` in `curl -d {note}` would upload that key. Like a leading dash, such a
 * value is refused at run time (bad-argument) where the template exposes it; the author sends text as is with curl's
 * raw forms (`--data-raw`, `--form-string`) or by writing the name part (`-F n={x}`).
 *
 * Options are read as curl reads them: a long option's value is the next word (curl 7.88 refuses `--data=…` as an unknown
 * option; it is read as the option here, which only refuses more), a short one's glued (`-d…`, `-sd…`) or the next word, and, as curl up to 8.5 does, any abbreviation of a long option (`--upload-fi`), in
 * any case, as every option it could abbreviate. Options that only write a file (`-o`, `--etag-save`) are not here:
 * the code-taking table lists them for the approval rules.
 */

/** Where in the option's value the placeholder stands for a form to apply. */
type Where =
  /** the value starts the option's value (`-d {x}`, `-d{x}`) */
  | 'start'
  /** after a literal `name=` (`-F n={x}`) */
  | 'content'
  /** anywhere in the option's value (`-T ./{x}`, `-F 'n=a;{x}'`) */
  | 'anywhere';

/** One way curl reads an option's value as a file (or a variable). */
interface Form {
  where: Where;
  /** `prefix` is the option's value before the placeholder. */
  reads: (value: string, prefix: string) => boolean;
  /** What curl reads there, for the message (see FileReference). */
  file?: string;
  instead: string;
  named?: true;
}

const startsWithAt = (value: string) => value.startsWith('@');
/**
 * Whether a match of `pattern` (global) in the template's text before the value and the value together ends inside
 * the value: the value writes or completes it (`headers=` in the template, `@file` in the value). A match in the
 * template's text alone is the author's own.
 */
function reachesInto(pattern: RegExp, prefix: string, value: string): boolean {
  const text = prefix + value;
  for (const match of text.matchAll(pattern)) if (match.index + match[0].length > prefix.length) return true;
  return false;
}
const AT = (instead: string, file?: string): Form[] => [
  { where: 'start', reads: startsWithAt, instead, ...(file ? { file } : {}) },
];
/** `name=@file;type=…`, `name=<file`, and `;headers=@file` / `headers=<file` after any content. */
const FORM: Form[] = [
  { where: 'start', reads: (value) => /^([^=]*=)?[@<]/.test(value), instead: '--form-string' },
  { where: 'content', reads: (value) => /^[@<]/.test(value), instead: '--form-string' },
  {
    where: 'anywhere',
    reads: (value, prefix) => reachesInto(/headers=\s*[@<]/gi, prefix, value),
    file: 'a file of headers to send (headers=@file)',
    instead: '--form-string',
  },
];
/** `--data-urlencode [name]@file`. */
const URLENCODE = (option: string): Form[] => [
  { where: 'start', reads: (value) => /^[^=]*@/.test(value), instead: `--${option} name=…` },
];
/** `--variable name@file`, `name[0-99]@file`, `%NAME` (an environment variable). */
const VARIABLE: Form[] = [
  {
    where: 'start',
    reads: (value) => /^%|^[^=]*@/.test(value),
    file: 'a file or an environment variable to import',
    instead: '--variable name=…',
  },
];
/** `-b NAME=VALUE` is a cookie, any other word a cookie file. */
const COOKIE: Form[] = [
  { where: 'start', reads: (value) => !value.includes('='), instead: '--cookie name=…' },
];
/** `-w @FILE` reads its output format from FILE; `%output{FILE}` in a format writes the rest to FILE. */
const WRITE_OUT: Form[] = [
  {
    where: 'start',
    reads: startsWithAt,
    file: 'a file to print',
    instead: '-w and a format that does not start with @',
  },
  {
    where: 'anywhere',
    reads: (value, prefix) => reachesInto(/%output\{/gi, prefix, value),
    file: 'a format that writes a file (%output{…})',
    instead: '-w and a format without %output{…}',
  },
];
/** The value is always a file's name: every value is refused, wherever in the word it stands. */
const NAMED = (file: string, instead = 'write the file in the template'): Form[] => [
  { where: 'anywhere', reads: () => true, file, instead, named: true },
];
const TRUST = NAMED('to decide which servers to trust');
const KEY = NAMED('as a key to sign with');
const CERT = NAMED('as a client certificate');
const CACHE = NAMED('as a cache, and rewrites it');
const SOCKET = NAMED('as the socket to connect to (a local service, such as Docker)');
/** `--pinnedpubkey FILE`, unless the value is the keys' hashes (`sha256//…;sha256//…`). */
const PINNED: Form[] = [
  {
    where: 'anywhere',
    reads: (value, prefix) => !/^sha256\/\//i.test(prefix.replace(/[\u0001\u0002]/g, '') + value),
    file: 'as the public key to pin',
    instead: "the keys' sha256// hashes written in the template",
    named: true,
  },
];

const WEEKDAY = '(?:mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
const DAY = '(?:0?[1-9]|[12]\\d|3[01])';
const YEAR = '(?:19[7-9]\\d|2\\d{3})';
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?';
const ZONE = '(?:gmt|utc)';
const GAP = '[ ,-]+';
/**
 * Dates curl's parser surely reads (curl_getdate): the HTTP forms (`Sun, 06 Nov 1994 08:49:37 GMT`,
 * `Sunday, 06-Nov-1994 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`), a day, a month and a year in either order with an
 * optional time and zone (`6 Nov 1994`, `Nov 6 1994 10:00 UTC`), and `YYYYMMDD`, after curl's `+`, `-` or `=`. A
 * narrower set than curl's only refuses more: any other value is read as a file.
 */
const CURL_DATE = new RegExp(
  `^[-+=]?(?:${YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])|(?:${WEEKDAY}${GAP})?(?:${DAY}${GAP}${MONTH}|${MONTH}${GAP}${DAY})(?:${GAP}${TIME}${GAP}${YEAR}|${GAP}${YEAR}(?:${GAP}${TIME})?)(?:${GAP}${ZONE})?)$`,
  'i',
);
/**
 * `-z DATE`, or a file whose modification time curl sends when the value is not a date (curl tries a date first). The
 * template's text after the value is not seen here: `-z {x}.txt` with a date names a file whose name the author ends.
 */
const TIME_COND: Form[] = [
  {
    where: 'anywhere',
    reads: (value, prefix) => !CURL_DATE.test(prefix + value),
    file: 'for its modification time, when the value is not a date',
    instead: 'a date curl reads, such as "Sun, 06 Nov 1994 08:49:37 GMT" or 19941106',
    named: true,
  },
];

/** curl's long options (without `--`) whose value can name a file it reads. */
const CURL: Readonly<Record<string, readonly Form[]>> = {
  data: AT('--data-raw'),
  'data-ascii': AT('--data-raw'),
  'data-binary': AT('--data-raw'),
  json: AT('--data-raw and a Content-Type header'),
  header: AT('a header name written in the template (-H "X-Note: …")'),
  'proxy-header': AT('a header name written in the template'),
  url: AT('a URL operand', 'a file of URLs to download'),
  'httpsig-key': AT('a key written in the template', 'a file holding the key to sign with'),
  form: FORM,
  'data-urlencode': URLENCODE('data-urlencode'),
  'url-query': URLENCODE('url-query'),
  variable: VARIABLE,
  cookie: COOKIE,
  'write-out': WRITE_OUT,
  'time-cond': TIME_COND,
  'upload-file': NAMED(
    'to upload it',
    'write the file in the template, or send the value as text with --data-binary @-',
  ),
  config: NAMED('as options, any of them', 'write the options in the template'),
  'etag-compare': NAMED('to send as an ETag'),
  'netrc-file': NAMED('for credentials to send'),
  cert: CERT,
  'proxy-cert': CERT,
  key: KEY,
  'proxy-key': KEY,
  pubkey: KEY,
  cacert: TRUST,
  capath: TRUST,
  crlfile: TRUST,
  'proxy-cacert': TRUST,
  'proxy-capath': TRUST,
  'proxy-crlfile': TRUST,
  knownhosts: NAMED('to decide which SSH hosts to trust'),
  hsts: CACHE,
  'alt-svc': CACHE,
  'ssl-sessions': CACHE,
  'egd-file': NAMED('for random data'),
  'random-file': NAMED('for random data'),
  pinnedpubkey: PINNED,
  'proxy-pinnedpubkey': PINNED,
  engine: NAMED(
    'as an OpenSSL engine, a shared library it loads and runs',
    'an engine written in the template',
  ),
  'unix-socket': SOCKET,
  'abstract-unix-socket': SOCKET,
};

/** curl's short options among `CURL`'s. */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  d: 'data',
  H: 'header',
  F: 'form',
  b: 'cookie',
  w: 'write-out',
  T: 'upload-file',
  K: 'config',
  E: 'cert',
  z: 'time-cond',
};

/**
 * `--expand-X` (curl 8.3) replaces `{{name}}` in X's value with a variable, which `--variable` may have read from a
 * file or the environment (`--variable %HOME`). A value must not make one: `{{` in it, or completing a `{{` with the
 * text around it.
 */
const expansion = (option: string): Form => ({
  where: 'anywhere',
  reads: (value, prefix) =>
    value.includes('{{') || value.endsWith('{') || (value.startsWith('{') && prefix.endsWith('{')),
  file: 'a curl variable ({{name}}: a file or an environment variable --variable read)',
  instead: `--${option}, without --expand-`,
});

/**
 * curl's short options that take a value: in a bundle (`-sd`), letters before one of `SHORT_NAMES` must not be among
 * them (`-ow` is `-o w`, not `-w`).
 */
const VALUE_LETTERS = 'AbcCdDeEFHKmoPQrtTuUwxXyYz';
/** curl's value-free short options: the letters that take no value, and -0 … -6, -# and -: (`-4T FILE` uploads FILE). */
const FLAG_CHARS = `${[...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((c) => !VALUE_LETTERS.includes(c)).join('')}0-6#:`;
const FLAGS = `[${FLAG_CHARS}]*`;
const LETTERS = Object.keys(SHORT_NAMES).join('');
/** A bundle ending in one of `SHORT_NAMES` (`-sd`), and the rest of the word, its glued value. */
const SHORT = new RegExp(`^-${FLAGS}([${LETTERS}])(.*)$`, 's');

/** The forms of a long option as written (`--data`, `--expand-data`, `--upload-fi`), or undefined. */
function longForms(word: string): readonly Form[] | undefined {
  let name = word.slice(2).toLowerCase();
  const expanded = name.startsWith('expand-');
  if (expanded) name = name.slice('expand-'.length);
  const names = CURL_LONG_OPTIONS.has(name)
    ? [name]
    : [...CURL_LONG_OPTIONS].filter((known) => name !== '' && known.startsWith(name));
  const forms = [...names.flatMap((known) => CURL[known] ?? [])];
  // an abbreviation is read as each option it could be; the message names it as written
  if (expanded && names.length > 0) forms.push(expansion(names.length === 1 ? names[0]! : name));
  return forms.length > 0 ? forms : undefined;
}

/**
 * Whether a `--` among curl's words ends its options: not when it is the value of the option before it (`-d --`,
 * `-sH --`). A long option before it may take a value (curl's value-taking long options are not all listed here): its
 * `--` is read as that value, which only ever refuses more.
 */
function endsOptions(words: readonly string[]): boolean {
  return words.some((word, i) => {
    if (word !== '--') return false;
    const before = words[i - 1];
    if (before === undefined || !before.startsWith('-') || before === '-') return true;
    if (before.startsWith('--')) return before.includes('=');
    // a short bundle takes the next word when its first value-taking letter ends it
    const letters = before.slice(1);
    const first = [...letters].findIndex((c) => VALUE_LETTERS.includes(c));
    return first !== letters.length - 1;
  });
}

interface Placement {
  /** The option as written, for the message (`-d`, `--expand-data`). */
  option: string;
  forms: readonly Form[];
  /** The option's value before the placeholder. */
  prefix: string;
}

/** The option whose value holds the placeholder: glued to it in its word (`-d{x}`, `--data=./{x}`), or the word before. */
function placement(before: string, previous: string | undefined): Placement | undefined {
  const long = /^(--[^=]+)=([\s\S]*)$/.exec(before);
  const gluedLong = long ? longForms(long[1]!) : undefined;
  if (long && gluedLong) return { option: long[1]!, forms: gluedLong, prefix: long[2]! };
  const short = before.startsWith('--') ? null : SHORT.exec(before);
  if (short) return { option: `-${short[1]}`, forms: CURL[SHORT_NAMES[short[1]!]!]!, prefix: short[2]! };
  if (previous === undefined) return undefined;
  if (previous.startsWith('--')) {
    if (previous.includes('=')) return undefined;
    const forms = longForms(previous);
    return forms ? { option: previous, forms, prefix: before } : undefined;
  }
  const bundle = SHORT.exec(previous);
  if (bundle?.[2] !== '') return undefined;
  return { option: `-${bundle[1]}`, forms: CURL[SHORT_NAMES[bundle[1]!]!]!, prefix: before };
}

/** Whether a form applies where the placeholder stands; other values before it (\u0001, \u0002) may be empty. */
function applies(where: Where, prefix: string): boolean {
  if (where === 'anywhere') return true;
  if (where === 'start') return /^[\u0001\u0002]*$/.test(prefix);
  return /^[^=]*=[\u0001\u0002]*$/.test(prefix);
}

/**
 * `command` is the source of the current simple command up to the placeholder (see bash-command.ts). Returns the
 * exposure to record when the placeholder's value could be read as a file reference, else undefined.
 */
export function fileReferenceExposure(command: string): OptionExposure | undefined {
  const { tokens, partial } = tokenize(command.replace(/\\\n/g, ''));
  if (tokens.at(-1)?.op) return undefined;
  const curl = tokens.findIndex((t) => !t.op && t.text.replace(/^.*\//, '') === 'curl');
  if (curl === -1) return undefined;
  const args = tokens.slice(curl + 1);
  if (endsOptions(args.filter((t) => !t.op).map((t) => t.text))) return undefined; // operands only: URLs
  // `partial` is the value's word up to the value (another value before it shows as \u0001)
  const previous = args.filter((t) => !t.op).at(-1)?.text;
  const placed = placement(partial, previous);
  if (!placed) return undefined;
  const { option, prefix } = placed;
  const fileReferences: FileReference[] = placed.forms
    .filter((form) => applies(form.where, prefix))
    .map((form) => ({
      option,
      reads: (value: string) => form.reads(value, prefix),
      instead: form.instead,
      ...(form.file ? { file: form.file } : {}),
      ...(form.named ? { named: true as const } : {}),
    }));
  return fileReferences.length > 0 ? { command: 'curl', fileReferences } : undefined;
}
