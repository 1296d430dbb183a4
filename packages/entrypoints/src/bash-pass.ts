import { type Atom, atomsOf } from './bash-atoms.js';
import type { Attributed } from './bash-command.js';
import { type CommandSource, evaluatedRegions, recordAssignments } from './bash-command-flow.js';
import { Findings, type Problem } from './bash-findings.js';
import { type Flow, isTainted, type Taint } from './bash-flow.js';
import { checkClosedFrame } from './bash-frame-checks.js';
import type { OptionExposure } from './bash-options.js';
import {
  backslash,
  commandOwner,
  dataHereDocument,
  describe,
  dollar,
  type Frame,
  inDataHereDocument,
  type Item,
  isSeparator,
  lineEnd,
  readExpansion,
  unquoted,
  unquotedLike,
} from './bash-scan.js';
import { shellReadingInput } from './bash-shells.js';
import { checkValue, spellPlaceholder } from './bash-value-checks.js';
import { EntrypointError } from './errors.js';

export type { Problem } from './bash-findings.js';

export interface PassSettings {
  names: readonly string[];
  where: string;
  attributed: Attributed;
  integer: (name: string) => boolean;
  flow: Flow;
  /** First pass: record assignments. Second pass: check every expansion of a variable that holds a value. */
  recording: boolean;
  templateLength: number;
  /** How many `eval`/`trap` codes this pass is inside. */
  depth?: number;
  /** First pass: each simple command as it ends (read by the code-taking check, code-taking-commands.ts). */
  onCommand?: (source: CommandSource, pipeInput: boolean) => void;
}

export interface PassResult {
  script: string;
  problems: Problem[];
  options: Map<string, OptionExposure>;
  /** Placeholders whose value reaches arithmetic (checked to be integers at run time). */
  integers: Set<string>;
}

/** Frames whose text is analysed when they close. */
const ANALYSED = new Set(['arith', 'arith-bracket', 'param', 'test', 'backtick']);
/** Commands that may assign a variable (a quick test before the first pass parses a command). */
const ASSIGNING =
  /=|\$|`|\b(for|select|read|mapfile|readarray|getopts|printf|wait|eval|trap|source|declare|typeset|local|export|readonly|set|bash|sh|dash|zsh|ksh|mksh|ash|posh|yash)\b|(^|\s)\.(\s|$)/;
/** Commands that may evaluate text (the same before the second pass looks for subscripts, `let`, code). */
const EVALUATING_COMMAND =
  /=|\[|\b(let|eval|trap|source|declare|typeset|local|export|readonly|unset|read|mapfile|readarray|getopts|printf|wait|test|bash|sh|dash|zsh|ksh|mksh|ash|posh|yash)\b|(^|\s)\.(\s|$)/;

/** One scan of a bash template: compiles it and collects problems (see bash-script.ts). */
export class BashPass {
  private readonly stack: Frame[] = [{ context: 'unquoted', depth: 0, command: '', start: 0 }];
  private readonly pending: Frame[] = []; // here-documents whose bodies start at the next newline
  private readonly findings: Findings;
  private out = '';
  private prev = ''; // previous source character; '' at the start, 'x' after a value
  /** The next `${` opens a parameter already counted as a value (see `reference`). */
  private quietNext = false;
  /** Source of the current line outside here-document bodies: a body's readers are on the line that declared it. */
  private line = '';
  /** How many quiet `${ … }` frames are open (their text stays out of the command's source). */
  private quiet = 0;

  constructor(
    private readonly items: readonly Item[],
    private readonly offsets: readonly number[],
    private readonly settings: PassSettings,
  ) {
    this.findings = new Findings(settings.flow, settings.integer);
    const root = this.stack[0]!;
    root.commandOffsets = [];
    root.marks = [];
    root.outputs = [];
  }

  get flow(): Flow {
    return this.settings.flow;
  }

  run(): PassResult {
    const { items, stack } = this;
    let lineStart = true;
    let i = 0;
    while (i < items.length) {
      const item = items[i]!;
      const frame = this.top();

      if (frame.context.startsWith('heredoc') && lineStart) {
        const end = lineEnd(items, i);
        if (end !== -1) {
          const line = (items.slice(i, end) as string[]).join('');
          if ((frame.stripTabs ? line.replace(/^\t+/, '') : line) === frame.delimiter) {
            this.out += line;
            i = end;
            this.prev = line.at(-1) ?? this.prev;
            lineStart = false;
            stack.pop();
            continue;
          }
        }
      }
      lineStart = false;

      if (typeof item !== 'string') {
        this.placeholderItem(item, i);
        i += 1;
        continue;
      }
      const reference = this.settings.recording ? 0 : this.reference(i, frame);
      if (reference > 0) {
        i += reference;
        continue;
      }

      const depth = stack.length;
      const owner = commandOwner(stack);
      const ctx = frame.context;
      let consumed = 1;

      if (ctx === 'comment') {
        if (item === '\n') stack.pop();
      } else if (ctx === 'single') {
        if (item === "'") stack.pop();
      } else if (ctx === 'ansi' || ctx === 'backtick') {
        if (item === '\\') consumed = backslash(items, i, this.fail);
        else if (item === (ctx === 'ansi' ? "'" : '`')) stack.pop();
      } else if (ctx === 'arith' || ctx === 'arith-bracket') {
        if (item === '(' || item === '[') frame.depth += 1;
        else if (ctx === 'arith' && item === ')' && frame.depth === 0 && this.charAt(i + 1) === ')') {
          stack.pop();
          consumed = 2;
        } else if (ctx === 'arith-bracket' && item === ']' && frame.depth === 0) stack.pop();
        else if (item === ')' || item === ']') frame.depth -= 1;
      } else if (item === '\\') {
        consumed = backslash(items, i, this.fail);
      } else if (item === '$' && this.charAt(i + 1) !== '' && ctx !== 'heredoc-quoted') {
        consumed = dollar(items, i, stack, ctx) ?? 1;
      } else if (item === '`' && ctx !== 'heredoc-quoted' && ctx !== 'param') {
        stack.push({ context: 'backtick', depth: 0 });
      } else if (ctx === 'double') {
        if (item === '"') stack.pop();
      } else if (ctx === 'heredoc' || ctx === 'heredoc-quoted') {
        // only the delimiter line (checked above) ends a here-document body
      } else if (ctx === 'param') {
        if (item === '{') frame.depth += 1;
        else if (item === '}' && frame.depth === 0) stack.pop();
        else if (item === '}') frame.depth -= 1;
        else if (item === '"') stack.push({ context: 'double', depth: 0 });
        else if (item === "'") stack.push({ context: 'single', depth: 0 });
      } else if (
        item === '(' &&
        this.prev === '=' &&
        owner &&
        /(^|[\s;&|(){}])[A-Za-z_]\w*(\[[^\]]*\])?\+?=$/.test(owner.command!)
      ) {
        // `x=( … )`: a compound array assignment, not a subshell
        stack.push({ context: 'unquoted', depth: 0, closesOnParen: true, array: true, subscript: 0 });
      } else {
        if (frame.array) this.arraySubscript(frame, item);
        consumed = unquoted(items, i, stack, this.pending, this.prev, this.fail);
      }

      const text = consumed === 1 ? item : (items.slice(i, i + consumed) as string[]).join('');
      if (!ctx.startsWith('heredoc')) this.line += text;
      // at most one frame opens or closes per step
      const popped = stack.length < depth ? frame : undefined;
      for (let k = 0; k < depth; k++) {
        const f = k < stack.length ? stack[k]! : frame;
        if (f.raw !== undefined) f.raw += text;
      }
      if (frame.text !== undefined) frame.text += text;
      if (stack.length > depth) this.opened(stack[stack.length - 1]!, i);
      if (owner?.command !== undefined) {
        if (popped === owner) {
          this.closedCommand(owner, text, i);
        } else if (
          stack[stack.length - 1] === owner &&
          !popped?.array &&
          isSeparator(text, this.prev, this.charAt(i + consumed))
        ) {
          const pipe = text === '|' && this.prev !== '|' && this.charAt(i + 1) !== '|';
          this.endCommand(owner, pipe);
        } else if (this.quiet === 0 && !this.inHereDocument(owner)) this.appendCommand(owner, text, i);
      }
      if (popped) this.closed(popped, i);
      this.out += text;
      i += consumed;
      // `\x` is part of a word (so `\ #` starts no comment); `\<newline>` vanishes, joining two lines into one
      // (so a here-document body does not start there, and `prev` stays what came before it).
      const escaped = text.length === 2 && text[0] === '\\' && ctx !== 'heredoc-quoted';
      if (escaped && text[1] === '\n') continue;
      this.prev = escaped ? 'x' : (text.at(-1) ?? this.prev);
      if (text.endsWith('\n')) {
        lineStart = true;
        if (
          this.pending.length > 0 &&
          !this.top().context.startsWith('heredoc') &&
          unquotedLike(this.top().context)
        ) {
          // bodies follow in order: push in reverse so the first here-document is on top
          for (const doc of this.pending.reverse()) {
            doc.line = this.line;
            doc.data = dataHereDocument(this.line);
            stack.push(doc);
          }
          this.pending.length = 0;
        }
        if (!ctx.startsWith('heredoc')) this.line = '';
      }
    }

    if (this.pending.length > 0) this.fail('here-document without a body');
    if (this.top().context === 'comment') stack.pop();
    if (stack.length > 1) this.fail(`unterminated ${describe(this.top().context)}`);
    this.endCommand(stack[0]!);
    return {
      script: this.out,
      problems: this.findings.problems,
      options: this.findings.options,
      integers: this.findings.integers,
    };
  }

  private readonly fail = (message: string): never => {
    throw new EntrypointError('bad-template', `${this.settings.where}: ${message}`);
  };

  private report(message: string, offset: number): void {
    this.findings.report(message, offset);
  }

  private checkValue(label: string, taint: Taint, offset: number, expansion?: string): void {
    const value = { label, taint, offset, ...(expansion === undefined ? {} : { expansion }) };
    checkValue(this.findings, this.stack, this.settings.attributed, value);
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  private charAt(i: number): string {
    const item = this.items[i];
    return typeof item === 'string' ? item : '';
  }

  private offsetAt(i: number): number {
    return this.offsets[i] ?? this.settings.templateLength;
  }

  /** A frame that was just pushed: where it starts, and what it collects. */
  private opened(frame: Frame, i: number): void {
    frame.start = this.offsetAt(i);
    if (ANALYSED.has(frame.context) || frame.closesOnParen) {
      frame.raw = '';
      frame.rawMarks = [];
    }
    if (frame.context === 'backtick' && !this.settings.recording) {
      // like $( … ): its output stands where a value would (the command name, an argument of eval …)
      this.checkValue(
        'the output of ` … `',
        { sources: new Set(), opaque: false, output: true },
        frame.start,
        '` … `',
      );
    }
    if (frame.context === 'param' && this.quietNext) {
      frame.quiet = true;
      this.quiet += 1;
      this.quietNext = false;
    }
    if (frame.array) {
      const owner = commandOwner(this.stack);
      frame.outerLength = owner?.command?.length ?? 0;
    }
    if (frame.command !== undefined) {
      frame.commandOffsets = [];
      frame.marks = [];
      frame.outputs = [];
      const outer = commandOwner(this.stack.slice(0, this.stack.indexOf(frame)));
      frame.outerLength = outer?.command !== undefined ? outer.command.length : 0;
      // `<(`: the `<` already in the command's text is part of this word, replaced with it when the frame closes
      if (frame.process && frame.outerLength > 0) frame.outerLength -= 1;
    }
  }

  /**
   * Whether the body of a data here-document (`dataHereDocument`: `cat <<EOF` alone on its line) lies between the top
   * of the stack and `owner`: that body is text the program prints, not words of a command (`a={v} b` in it assigns
   * nothing). Every other body stays part of the template's commands, as if the template ran it. A `$( … )` in a body
   * is a command of its own, whose owner is above the body.
   */
  private inHereDocument(owner: Frame): boolean {
    return inDataHereDocument(this.stack, owner);
  }

  private appendCommand(frame: Frame, text: string, i: number): void {
    frame.command += text;
    for (let k = 0; k < text.length; k++) frame.commandOffsets!.push(this.offsetAt(i + k));
  }

  /** Adds a value (a placeholder, or an expansion of a variable that holds one) to the commands and raw texts. */
  private appendValue(atom: Atom, i: number): void {
    const owner = commandOwner(this.stack);
    if (owner?.command !== undefined && !this.inHereDocument(owner)) {
      owner.command += '\u0001';
      owner.commandOffsets!.push(this.offsetAt(i));
      owner.marks!.push(atom);
      owner.valueSeen = true;
    }
    for (const f of this.stack) {
      if (f.raw !== undefined) {
        f.raw += '\u0001';
        f.rawMarks!.push(atom);
      }
    }
  }

  /** The end of a simple command: what it assigns (first pass), where it evaluates text (second pass). */
  private endCommand(frame: Frame, pipe = false): void {
    const line = frame.command!.split('\n', 1)[0]!;
    const shell = frame.pipeInput ? shellReadingInput(line) : undefined;
    if (shell) {
      this.report(
        `a value reaches '${shell}' through a pipe, and ${shell} runs what it reads as a script`,
        frame.commandOffsets![0] ?? 0,
      );
    }
    const pipeInput = pipe && (frame.valueSeen === true || frame.pipeInput === true);
    const source: CommandSource = {
      text: frame.command!,
      marks: frame.marks!,
      outputs: frame.outputs!,
      offsets: frame.commandOffsets!,
    };
    if (this.settings.recording) this.settings.onCommand?.(source, frame.pipeInput === true);
    if (this.settings.recording ? ASSIGNING.test(source.text) : EVALUATING_COMMAND.test(source.text)) {
      if (this.settings.recording) {
        const code = recordAssignments(source, this.flow);
        if (code !== undefined) this.nested(code.text, code.offset, 'eval');
      } else {
        for (const region of evaluatedRegions(source, this.integerNames)) {
          if (region.code !== undefined) this.nested(region.code, region.offset, region.where);
          else this.findings.region(region);
        }
      }
    }
    frame.command = '';
    frame.commandOffsets = [];
    frame.marks = [];
    frame.outputs = [];
    frame.valueSeen = false;
    frame.pipeInput = pipeInput;
  }

  private get integerNames(): Set<string> {
    this.integerNamesCache ??= new Set(
      [...this.settings.attributed].filter(([, kind]) => kind === 'integer').map(([name]) => name),
    );
    return this.integerNamesCache;
  }

  private integerNamesCache: Set<string> | undefined;

  /** `$( … )` closed: its own last command ends, and the enclosing command sees its output. */
  private closedCommand(inner: Frame, text: string, i: number): void {
    this.endCommand(inner);
    const outer = commandOwner(this.stack);
    if (outer?.command === undefined) return;
    const body = atomsOf(inner.raw!.slice(0, -text.length), inner.rawMarks);
    // In a here-document body the output is text that the body's reader gets: checked where it stands (a shell
    // reading the body runs it), but it is no word of a command.
    const inBody = this.inHereDocument(outer);
    const start = inner.outerLength ?? outer.command.length;
    const openedAt = inBody
      ? (inner.start ?? this.offsetAt(i))
      : (outer.commandOffsets![start] ?? this.offsetAt(i));
    if (!inBody) {
      outer.command = outer.command.slice(0, start);
      outer.commandOffsets!.length = start;
    }
    const taint = this.settings.recording ? undefined : this.flow.taintOf(body, true);
    if (taint) {
      // its output holds what the body was given, or what a command read (a file the model wrote, say): checked
      // like a value wherever it stands, except that clean output may be split into words
      const label = isTainted(taint)
        ? `$( … ) (which prints ${this.findings.describe(taint)})`
        : 'the output of $( … )';
      this.checkValue(label, isTainted(taint) ? taint : { ...taint, output: true }, openedAt, '$( … )');
    }
    if (inBody) return;
    if (taint) {
      outer.command += '\u0001';
      outer.marks!.push({ kind: 'output', inner: body });
    } else {
      outer.command += '\u0004';
      outer.outputs!.push(body);
    }
    outer.valueSeen = true; // `echo "$(cat f)" | bash` runs what a file holds
    outer.commandOffsets!.push(openedAt);
  }

  /** Tracks `[sub]=` words inside a compound array assignment. */
  private arraySubscript(frame: Frame, item: string): void {
    if (item === '[' && (frame.subscript! > 0 || /[\s(]/.test(this.prev) || this.prev === ''))
      frame.subscript! += 1;
    else if (item === ']' && frame.subscript! > 0) frame.subscript! -= 1;
  }

  private placeholderItem(item: { name: string; offset: number }, i: number): void {
    const frame = this.top();
    const integer = this.settings.integer(item.name);
    const taint: Taint = { sources: new Set([item.name]), opaque: false, output: false };
    const label = `{${item.name}}`;
    if (frame.context !== 'comment') this.checkValue(label, taint, item.offset);
    // Quotes or $( … ) inside ${ … } do not make a value safe: an offset, length or subscript there is
    // arithmetic, which evaluates the expanded value (and the output of a command substitution) as code.
    if (this.stack.some((f) => f.context === 'param') && frame.context !== 'param') {
      if (integer) this.findings.integers.add(item.name);
      else
        this.report(
          `${label} inside \${ … }: bash may evaluate it as an arithmetic offset or subscript`,
          item.offset,
        );
    }
    const index = this.settings.names.indexOf(item.name) + 1;
    const report = (message: string) => this.report(message, item.offset);
    const after$ = this.prev === '$';
    this.out += spellPlaceholder(item.name, index, frame.context, after$, integer, report, this.fail);
    if (integer && /^(param|arith|arith-bracket)$/.test(frame.context)) this.findings.integers.add(item.name);
    // A quoted value (or a $( … ) output) inside [[ … ]] is still an arithmetic operand of -eq & co.
    for (const f of this.stack) f.placeholders?.push(item.name);
    this.appendValue({ kind: 'placeholder', name: item.name }, i);
    this.prev = 'x';
  }

  /**
   * A `$name`, `$1`, `$@` or `${…}` at `i` whose variable holds a value (second pass): checked like the value itself.
   * Returns how many items it consumed; 0 leaves the item to the scanner (a `${` then opens a quiet parameter).
   */
  private reference(i: number, frame: Frame): number {
    const ctx = frame.context;
    if (
      this.items[i] !== '$' ||
      !(unquotedLike(ctx) || ctx === 'double' || ctx === 'heredoc' || ctx === 'param')
    )
      return 0;
    const found = readExpansion(this.items, i);
    if (!found) return 0;
    const { name, length, indirect } = found;
    const taint = this.flow.valueOf(name);
    if (!isTainted(taint) && !taint.output) return 0;

    const shown = length > 0 ? `$${name}` : indirect ? '$\u007B!…}' : `\${${name}…}`;
    this.checkValue(
      `${shown} (which holds ${this.findings.describe(taint)})`,
      taint,
      this.offsetAt(i),
      shown,
    );
    this.appendValue({ kind: 'var', name }, i);
    if (length === 0) {
      this.quietNext = true;
      return 0;
    }
    this.out += (this.items.slice(i, i + length) as string[]).join('');
    this.prev = 'x';
    return length;
  }

  /**
   * Literal code of `eval` or `trap`: scanned like the template, with the same variables. What it assigns is
   * recorded in the first pass; its problems count in the second.
   */
  private nested(code: string, offset: number, where: string): void {
    const depth = (this.settings.depth ?? 0) + 1;
    const items = [...code];
    const offsets = items.map(() => offset);
    let result: PassResult | undefined;
    try {
      if (depth > 4) throw new Error('nested too deep');
      result = new BashPass(items, offsets, { ...this.settings, depth }).run();
    } catch {
      if (this.settings.recording) this.flow.dynamic = true;
      else
        this.report(`the code of ${where} cannot be followed (it does not parse, or nests too deep)`, offset);
      return;
    }
    if (!this.settings.recording) this.findings.absorb(result, where, offset);
  }

  /** A frame closed: check what bash evaluated in it. */
  private closed(frame: Frame, i: number): void {
    if (frame.quiet) this.quiet -= 1;
    const start = frame.start ?? this.offsetAt(i);
    checkClosedFrame(this.findings, frame, start, !this.settings.recording, (name, after) =>
      this.placeholderOffset(name, after),
    );
  }

  private placeholderOffset(name: string, after: number): number {
    for (let k = 0; k < this.items.length; k++) {
      const item = this.items[k];
      if (typeof item !== 'string' && item?.name === name && item.offset >= after) return item.offset;
    }
    return after;
  }
}
