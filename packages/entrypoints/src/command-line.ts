/**
 * The command-line reader of approval rules: which simple commands a raw command line (a `bash:{command}` tool's
 * argument) runs, or that it cannot tell. It accepts a deliberately small part of bash and refuses everything else
 * ("fails closed"): what it places, bash runs exactly as read (a differential test checks this under real bash);
 * what it refuses is never matched by an allow rule, so the call asks.
 *
 * Accepted: simple commands of words joined by `&&`, `||`, `;`, `|` and newlines; words made of plain characters,
 * '…' and "…" quotes (quotes are removed: `'git' "status"` is `git status`); redirections to `/dev/null`
 * (`>`, `>>`, `2>`, `&>`, `>&`), descriptor copies (`2>&1`) and here-strings (`<<< word`).
 *
 * Refused (with the offset of the first such thing): any `$` (parameter, command and arithmetic expansion, `$'…'`),
 * backticks, `<(…)`/`>(…)`, `(`/`)` (subshells, functions, extglobs), `{`/`}` (groups, brace expansion), globs
 * (`*`, `?`, `[`), `~`, `!`, `#` (comments), a backslash outside quotes (`\ `, `\` + newline), `&` (background),
 * other redirections (`>file`, `<file`, here-docs), assignment prefixes (`PATH=x git`), reserved words
 * (`if`, `for`, `time`, …), `eval`/`source`/`.`/`exec`, characters outside printable ASCII outside quotes
 * (look-alikes such as U+FF47 or a no-break space), NUL, and anything bash would reject as a syntax error.
 */

/** One simple command as bash will run it: its words after quote removal, and where it stands in the line. */
export interface SimpleCommand {
  /** argv as the program receives it (the first word is the program). */
  words: string[];
  /** 0-based offsets of its first and past its last character in the line. */
  start: number;
  end: number;
}

export type CommandLineReading =
  | { placed: true; commands: SimpleCommand[] }
  | { placed: false; reason: string; offset: number };

/**
 * Programs the reader never places: they run text as code, replace or leave the shell, or change its state for the
 * commands after them (`hash -p ./x git; git status`, `read PATH <<< /tmp`, `cd elsewhere && ./build`), so what a
 * later, allowed command runs would no longer be what its words say. `printf` is refused only with `-v`.
 */
const NEVER_PLACED = new Set([
  'eval',
  'source',
  '.',
  'exec',
  'builtin',
  'command',
  'coproc',
  'trap',
  'alias',
  'unalias',
  'enable',
  'export',
  'declare',
  'typeset',
  'readonly',
  'local',
  'unset',
  'set',
  'shopt',
  'hash',
  'read',
  'mapfile',
  'readarray',
  'let',
  'getopts',
  'cd',
  'pushd',
  'popd',
  'ulimit',
  'umask',
  'exit',
  'return',
  'break',
  'continue',
  'logout',
  'fc',
  'history',
  'bind',
  'complete',
  'compgen',
  'compopt',
  'shift',
  'wait',
  'disown',
  'suspend',
]);

const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'function',
  'time',
  'in',
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'coproc',
]);

/** Unquoted characters that are part of a word as they are. */
const PLAIN = /[A-Za-z0-9_\-.,/:=+@%^\]]/;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\+?=|\[)/;

class Refusal {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {}
}

interface Word {
  text: string;
  /** The word's characters before its first quote (an fd number, an assignment prefix). */
  raw: string;
  quoted: boolean;
  start: number;
}

/**
 * Reads `line` into the simple commands bash would run, or says why it cannot tell. Never throws.
 */
export function readCommandLine(line: string): CommandLineReading {
  try {
    return { placed: true, commands: new Reader(line).read() };
  } catch (error) {
    if (error instanceof Refusal) return { placed: false, reason: error.reason, offset: error.offset };
    throw error;
  }
}

type Separator = ';' | '\n' | '&&' | '||' | '|';

class Reader {
  #i = 0;
  constructor(private readonly s: string) {}

  read(): SimpleCommand[] {
    const commands: SimpleCommand[] = [];
    // After `&&`, `||`, `|` a command must follow; after `;` only a command or the end; a newline allows either.
    let need: 'command' | 'command-or-end' | 'any' = 'any';
    for (;;) {
      this.#blanks();
      if (this.#i >= this.s.length) {
        if (need === 'command')
          throw new Refusal('the line ends after an operator that needs a command', this.#i);
        return commands;
      }
      const before = this.#i;
      const separator = this.#separator();
      if (separator === '\n') {
        if (need === 'command-or-end') need = 'any';
        continue;
      }
      if (separator !== undefined) throw new Refusal(`\`${separator}\` without a command before it`, before);
      const command = this.#command();
      commands.push(command);
      this.#blanks();
      if (this.#i >= this.s.length) return commands;
      const at = this.#i;
      const after = this.#separator();
      if (after === undefined) throw new Refusal('unexpected character after a command', at);
      need = after === ';' ? 'command-or-end' : after === '\n' ? 'any' : 'command';
      if (need === 'command') this.#newlines();
    }
  }

  #blanks(): void {
    while (this.s[this.#i] === ' ' || this.s[this.#i] === '\t') this.#i += 1;
  }

  #newlines(): void {
    for (;;) {
      this.#blanks();
      if (this.s[this.#i] !== '\n') return;
      this.#i += 1;
    }
  }

  #separator(): Separator | undefined {
    const s = this.s;
    const c = s[this.#i];
    const two = s.slice(this.#i, this.#i + 2);
    if (two === '&&' || two === '||') {
      this.#i += 2;
      return two;
    }
    if (two === '|&') throw new Refusal('`|&` (a pipe of stderr) is not placed', this.#i);
    if (two === ';;' || two === ';&') throw new Refusal(`\`${two}\` outside a case`, this.#i);
    if (c === ';' || c === '|' || c === '\n') {
      this.#i += 1;
      return c;
    }
    if (c === '\r') throw new Refusal('a carriage return', this.#i);
    return undefined;
  }

  #command(): SimpleCommand {
    const start = this.#i;
    const words: Word[] = [];
    for (;;) {
      this.#blanks();
      const c = this.s[this.#i];
      if (
        c === undefined ||
        c === ';' ||
        c === '|' ||
        c === '\n' ||
        (c === '&' && this.s[this.#i + 1] === '&')
      )
        break;
      if (this.#redirection(undefined)) continue;
      const word = this.#word();
      // `2>/dev/null`: a word of digits right before `>` or `<` is the descriptor, not an argument.
      const next = this.s[this.#i];
      if ((next === '>' || next === '<') && !word.quoted && /^[0-9]+$/.test(word.raw)) {
        this.#redirection(word.start);
        continue;
      }
      if (words.length === 0) this.#checkFirst(word);
      else if (words[0]?.text === 'printf' && word.text.startsWith('-v'))
        throw new Refusal('`printf -v` assigns a variable', word.start);
      words.push(word);
    }
    if (words.length === 0) throw new Refusal('a command with redirections only', start);
    let end = this.#i;
    while (end > start && (this.s[end - 1] === ' ' || this.s[end - 1] === '\t')) end -= 1;
    return { words: words.map((w) => w.text), start, end };
  }

  #checkFirst(word: Word): void {
    if (ASSIGNMENT.test(word.raw))
      throw new Refusal('an assignment before the command (it changes what runs or how)', word.start);
    if (RESERVED.has(word.text)) throw new Refusal(`the reserved word \`${word.text}\``, word.start);
    if (NEVER_PLACED.has(word.text))
      throw new Refusal(
        `\`${word.text}\` runs text as code, replaces or leaves the shell, or changes what later commands run`,
        word.start,
      );
  }

  /** A redirection at the cursor (after a descriptor number starting at `from`), if there is one. */
  #redirection(from: number | undefined): boolean {
    const s = this.s;
    const at = from ?? this.#i;
    const rest = s.slice(this.#i, this.#i + 3);
    if (rest.startsWith('<<<')) {
      this.#i += 3;
      this.#target(at);
      return true;
    }
    if (rest.startsWith('<(') || rest.startsWith('>(')) throw new Refusal('a process substitution', this.#i);
    if (rest.startsWith('<<')) throw new Refusal('a here-document', at);
    if (rest.startsWith('<')) throw new Refusal('an input redirection from a file', at);
    let op: string | undefined;
    for (const candidate of ['&>>', '&>', '>>', '>&', '>|', '>']) {
      if (s.startsWith(candidate, this.#i)) {
        op = candidate;
        break;
      }
    }
    if (!op) return false;
    if (op === '>|') throw new Refusal('a `>|` redirection', at);
    if (op.startsWith('&') && from !== undefined) throw new Refusal('a descriptor before `&>`', at);
    this.#i += op.length;
    if (op === '>&') {
      // A copy of stdout or stderr (`2>&1`, `>&2`); another descriptor may not be open, and then bash runs nothing.
      const digits = /^[0-9]+/.exec(s.slice(this.#i));
      if (digits && !this.#continuesWord(this.#i + digits[0].length)) {
        if (digits[0] !== '1' && digits[0] !== '2')
          throw new Refusal('a copy of a descriptor other than 1 or 2', at);
        this.#i += digits[0].length;
        return true;
      }
    }
    const target = this.#target(at);
    if (target !== '/dev/null') throw new Refusal('a redirection to a file other than /dev/null', at);
    return true;
  }

  #continuesWord(index: number): boolean {
    const c = this.s[index];
    return c !== undefined && c !== ' ' && c !== '\t' && c !== '\n' && c !== ';' && c !== '|' && c !== '&';
  }

  #target(at: number): string {
    this.#blanks();
    const c = this.s[this.#i];
    if (c === undefined || c === '\n' || c === ';' || c === '|' || c === '&' || c === '<' || c === '>')
      throw new Refusal('a redirection without a target', at);
    return this.#word().text;
  }

  #word(): Word {
    const s = this.s;
    const start = this.#i;
    let text = '';
    let raw = '';
    let quoted = false;
    while (this.#i < s.length) {
      const c = s[this.#i] as string;
      if (
        c === ' ' ||
        c === '\t' ||
        c === '\n' ||
        c === ';' ||
        c === '|' ||
        c === '&' ||
        c === '>' ||
        c === '<'
      )
        break;
      if (c === "'") {
        const close = s.indexOf("'", this.#i + 1);
        if (close < 0) throw new Refusal('an unterminated single quote', this.#i);
        text += s.slice(this.#i + 1, close);
        this.#i = close + 1;
        quoted = true;
        continue;
      }
      if (c === '"') {
        text += this.#doubleQuoted();
        quoted = true;
        continue;
      }
      if (!PLAIN.test(c)) throw new Refusal(this.#describe(c), this.#i);
      text += c;
      if (!quoted) raw += c;
      this.#i += 1;
    }
    if (s[this.#i] === '&' && s[this.#i + 1] !== '&')
      throw new Refusal(s[this.#i + 1] === '>' ? 'a word before `&>`' : '`&` (a background job)', this.#i);
    if (this.#i === start) throw new Refusal('an empty word', start);
    return { text, raw, quoted, start };
  }

  #doubleQuoted(): string {
    const s = this.s;
    const open = this.#i;
    let text = '';
    this.#i += 1;
    for (;;) {
      const c = s[this.#i];
      if (c === undefined) throw new Refusal('an unterminated double quote', open);
      if (c === '"') {
        this.#i += 1;
        return text;
      }
      if (c === '$' || c === '`') throw new Refusal('an expansion inside double quotes', this.#i);
      if (c === '\0') throw new Refusal('a NUL character', this.#i);
      if (c === '\\') {
        const next = s[this.#i + 1];
        if (next === '\n') throw new Refusal('a backslash-newline', this.#i);
        if (next === '"' || next === '\\' || next === '$' || next === '`') {
          text += next;
          this.#i += 2;
          continue;
        }
      }
      text += c;
      this.#i += 1;
    }
  }

  #describe(c: string): string {
    switch (c) {
      case '$':
        return 'an expansion (`$`): what runs would depend on its value';
      case '`':
        return 'a command substitution (backticks)';
      case '\\':
        return 'a backslash outside quotes';
      case '(':
      case ')':
        return 'a subshell, function or pattern (`(`/`)`)';
      case '{':
      case '}':
        return 'a group or brace expansion (`{`/`}`)';
      case '*':
      case '?':
      case '[':
        return 'a glob pattern (its files decide the words)';
      case '~':
        return 'a tilde expansion';
      case '#':
        return 'a comment';
      case '!':
        return 'a `!`';
      case '\0':
        return 'a NUL character';
      default:
        return c.charCodeAt(0) > 0x7e || c.charCodeAt(0) < 0x20
          ? `the character U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')} outside quotes`
          : `the character \`${c}\` outside quotes`;
    }
  }
}
