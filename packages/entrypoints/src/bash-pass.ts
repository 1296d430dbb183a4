import { type Atom, atomsOf, splitParameter } from './bash-atoms.js';
import {
  type Attributed,
  commandName,
  commandPositionProblem,
  expansionSplits,
  type PositionProblem,
  shellReadingInput,
} from './bash-command.js';
import { type CommandSource, evaluatedRegions, type Region, recordAssignments } from './bash-command-flow.js';
import { type Flow, isTainted, type Taint } from './bash-flow.js';
import { mergeExposure, type OptionExposure, optionExposure } from './bash-options.js';
import {
  backslash,
  commandOwner,
  describe,
  dollar,
  type Frame,
  type Item,
  isSeparator,
  lineEnd,
  unquoted,
  unquotedLike,
} from './bash-scan.js';
import { EntrypointError } from './errors.js';

/** A place where a value would not stay data; `offset` is into the template. */
export interface Problem {
  message: string;
  offset: number;
}

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
}

export interface PassResult {
  script: string;
  problems: Problem[];
  options: Map<string, OptionExposure>;
  integers: Set<string>;
}

/** Frames whose text is analysed when they close. */
const ANALYSED = new Set(['arith', 'arith-bracket', 'param', 'test', 'backtick']);
const ARITHMETIC_TEST = /(^|\s)-(eq|ne|lt|le|gt|ge)(\s|$)/;
const NAME_TEST = /(^|\s)-[vR](\s|$)/;
const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const CLEAN_SPECIAL = /[#?$!0-]/;
/** Commands that may assign a variable (a quick test before the first pass parses a command). */
const ASSIGNING =
  /=|\$|`|\b(for|select|read|mapfile|readarray|getopts|printf|wait|eval|trap|source|declare|typeset|local|export|readonly|bash|sh|dash|zsh|ksh|mksh|ash|posh|yash)\b|(^|\s)\.(\s|$)/;
/** Commands that may evaluate text (the same before the second pass looks for subscripts, `let`, code). */
const EVALUATING_COMMAND =
  /=|\[|\b(let|eval|trap|source|declare|typeset|local|export|readonly|unset|read|mapfile|readarray|getopts|printf|wait|test|bash|sh|dash|zsh|ksh|mksh|ash|posh|yash)\b|(^|\s)\.(\s|$)/;

/** One scan of a bash template: compiles it and collects problems (see bash-script.ts). */
export class BashPass {
  private readonly stack: Frame[] = [{ context: 'unquoted', depth: 0, command: '', start: 0 }];
  private readonly pending: Frame[] = []; // here-documents whose bodies start at the next newline
  private readonly problems: Problem[] = [];
  private readonly options = new Map<string, OptionExposure>();
  private readonly integers = new Set<string>();
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
        } else if (this.quiet === 0) this.appendCommand(owner, text, i);
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
      problems: this.problems,
      options: this.options,
      integers: this.integers,
    };
  }

  private readonly fail = (message: string): never => {
    throw new EntrypointError('bad-template', `${this.settings.where}: ${message}`);
  };

  private report(message: string, offset: number): void {
    this.problems.push({ message, offset });
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
    }
  }

  private appendCommand(frame: Frame, text: string, i: number): void {
    frame.command += text;
    for (let k = 0; k < text.length; k++) frame.commandOffsets!.push(this.offsetAt(i + k));
  }

  /** Adds a value (a placeholder, or an expansion of a variable that holds one) to the commands and raw texts. */
  private appendValue(atom: Atom, i: number): void {
    const owner = commandOwner(this.stack);
    if (owner?.command !== undefined) {
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
    if (this.settings.recording ? ASSIGNING.test(source.text) : EVALUATING_COMMAND.test(source.text)) {
      if (this.settings.recording) {
        const code = recordAssignments(source, this.flow);
        if (code !== undefined) this.nested(code, source.offsets[0] ?? 0, 'eval');
      } else {
        for (const region of evaluatedRegions(source, this.integerNames)) this.region(region);
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
    const start = inner.outerLength ?? outer.command.length;
    const openedAt = outer.commandOffsets![start] ?? this.offsetAt(i);
    outer.command = outer.command.slice(0, start);
    outer.commandOffsets!.length = start;
    const taint = this.settings.recording ? undefined : this.flow.taintOf(body, true);
    if (taint) {
      // its output holds what the body was given, or what a command read (a file the model wrote, say): checked
      // like a value wherever it stands, except that clean output may be split into words
      const label = isTainted(taint)
        ? `$( … ) (which prints ${this.describeTaint(taint)})`
        : 'the output of $( … )';
      this.checkValue(label, isTainted(taint) ? taint : { ...taint, output: true }, openedAt, '$( … )');
      outer.command += '\u0001';
      outer.marks!.push({ kind: 'output', inner: body });
      outer.valueSeen = true;
    } else {
      outer.command += '\u0004';
      outer.outputs!.push(body);
      outer.valueSeen = true; // `echo "$(cat f)" | bash` runs what a file holds
    }
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
      if (integer) this.integers.add(item.name);
      else
        this.report(
          `${label} inside \${ … }: bash may evaluate it as an arithmetic offset or subscript`,
          item.offset,
        );
    }
    this.out += this.placeholder(item, frame, integer);
    // A quoted value (or a $( … ) output) inside [[ … ]] is still an arithmetic operand of -eq & co.
    for (const f of this.stack) f.placeholders?.push(item.name);
    this.appendValue({ kind: 'placeholder', name: item.name }, i);
    this.prev = 'x';
  }

  private placeholder(item: { name: string; offset: number }, frame: Frame, integer: boolean): string {
    const index = this.settings.names.indexOf(item.name) + 1;
    const ref = `\${birdie_${index}}`;
    const name = `{${item.name}}`;
    const refuse = (message: string) => {
      this.report(message, item.offset);
      return ref;
    };
    switch (frame.context) {
      case 'unquoted':
      case 'test':
        if (this.prev === '$') refuse(`'$' right before ${name}; write \${{NAME}} for a shell variable`);
        return `"${ref}"`;
      case 'double':
      case 'heredoc':
        if (this.prev === '$') refuse(`'$' right before ${name}; write \${{NAME}} for a shell variable`);
        return ref;
      case 'single':
        return `'"${ref}"'`;
      case 'ansi':
        return `'"${ref}"$'`;
      case 'backtick':
        return this.fail(`${name} inside backticks; use $( … ) instead`);
      case 'param':
        if (integer) {
          this.integers.add(item.name);
          return ref;
        }
        return refuse(`${name} inside \${ … }: bash may evaluate it as an arithmetic subscript`);
      case 'arith':
      case 'arith-bracket':
        if (integer) {
          this.integers.add(item.name);
          return ref;
        }
        return refuse(
          `${name} in an arithmetic context: bash evaluates the value as code there; declare it as an integer in the schema (type: integer) to allow it`,
        );
      case 'heredoc-quoted':
        return this.fail(`${name} inside a quoted here-document, where nothing is expanded`);
      case 'comment':
        return name; // nothing runs in a comment
    }
  }

  /**
   * The checks for a value wherever it stands in a command: the position (an argument of eval, a command name, a
   * subscript …), option exposure, word splitting, and a subscript of a compound array assignment.
   */
  private checkValue(label: string, taint: Taint, offset: number, expansion?: string): void {
    const owner = commandOwner(this.stack);
    const frame = this.top();
    if (frame.context === 'heredoc') {
      // `bash <<EOF` and `cat <<EOF | sh` run the body
      const stages = (frame.line ?? '').split(/(?<!\|)\|(?![|&])/);
      const from = stages.findIndex((stage) => stage.includes('<<'));
      const shell = stages
        .slice(Math.max(from, 0))
        .map((stage) => shellReadingInput(stage.trim()))
        .find(Boolean);
      if (shell) this.report(`${label} is in a here-document that '${shell}' runs as its script`, offset);
      return;
    }
    if (frame.context.startsWith('heredoc') || frame.context === 'comment' || owner?.command === undefined)
      return;
    const integer = this.allInteger(taint);
    const allow = (problem: PositionProblem | undefined) => {
      if (!problem) return;
      if (problem.arithmetic && integer) this.addIntegers(taint);
      else this.report(problem.message, offset);
    };
    const array = this.stack.find((f) => f.array && this.stack.indexOf(f) > this.stack.indexOf(owner));
    // an element of `x=( … )` stands where the assignment's value does
    const command = array ? owner.command.slice(0, array.outerLength) : owner.command;
    allow(commandPositionProblem(command, label, this.settings.attributed));
    allow(this.dynamicCommandProblem(command, label));
    if (array && array.subscript! > 0) {
      allow({
        message: `${label} inside an array subscript: bash evaluates subscripts as arithmetic, which runs code`,
        arithmetic: true,
      });
    }
    const exposure = optionExposure(command);
    if (exposure)
      for (const source of taint.sources)
        this.options.set(source, mergeExposure(this.options.get(source), exposure));
    if (expansion !== undefined && isTainted(taint)) {
      const inner = this.stack.slice(this.stack.indexOf(owner) + 1);
      const quoted = inner.some((f) => f.context === 'double' || f.context === 'test');
      if (!quoted && expansionSplits(owner.command, array !== undefined)) {
        if (integer) this.addIntegers(taint);
        else
          this.report(
            `${label} is not quoted: bash would split it into words and expand * and ? in it; write "${expansion}"`,
            offset,
          );
      }
    }
  }

  /** `$tool {x}`: the command is whatever the variable holds, so check each word the template assigns it. */
  private dynamicCommandProblem(command: string, label: string): PositionProblem | undefined {
    if (!command.includes('$')) return undefined;
    const name = commandName(command);
    const variable = name && /^["']?\$\{?([A-Za-z_]\w*)\}?["']?$/.exec(name)?.[1];
    if (!variable) return undefined;
    const words = this.flow.commandWords(variable);
    if (words === undefined) return undefined; // not assigned here: the user's environment chose it
    if (words === null) {
      return {
        message: `${label} is an argument of $${variable}, a command the template cannot know in advance`,
      };
    }
    for (const word of words) {
      const problem = commandPositionProblem(command.replace(name!, word), label, this.settings.attributed);
      if (problem) return problem;
    }
    return undefined;
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
    const next = this.charAt(i + 1);
    let name = '';
    let length = 0;
    let indirect = false;
    if (IDENT_START.test(next)) {
      let k = i + 1;
      while (IDENT.test(this.charAt(k))) k += 1;
      name = (this.items.slice(i + 1, k) as string[]).join('');
      length = k - i;
    } else if (/[0-9@*]/.test(next)) {
      name = next;
      length = 2;
    } else if (next === '{') {
      const { prefix, name: parameterName } = splitParameter(this.peekParameter(i + 2));
      if (prefix === '#' && parameterName !== '') return 0; // a length
      indirect = prefix === '!';
      name = indirect ? '@' : parameterName; // `${!x}` may expand any variable
    } else return 0;
    if (name === '' || (name.length === 1 && CLEAN_SPECIAL.test(name))) return 0;
    const taint = this.flow.valueOf(name);
    if (!isTainted(taint) && !taint.output) return 0;

    const shown = length > 0 ? `$${name}` : indirect ? '$\u007B!…}' : `\${${name}…}`;
    this.checkValue(`${shown} (which holds ${this.describeTaint(taint)})`, taint, this.offsetAt(i), shown);
    this.appendValue({ kind: 'var', name }, i);
    if (length === 0) {
      this.quietNext = true;
      return 0;
    }
    this.out += (this.items.slice(i, i + length) as string[]).join('');
    this.prev = 'x';
    return length;
  }

  private peekParameter(from: number): string {
    let body = '';
    for (let k = from; k < this.items.length && body.length < 200; k++) {
      const item = this.items[k];
      if (typeof item !== 'string' || item === '}' || item === ':' || item === '[') break;
      body += item;
    }
    return body;
  }

  /** A frame closed: analyse what it contained. */
  private closed(frame: Frame, i: number): void {
    if (frame.quiet) this.quiet -= 1;
    if (frame.raw === undefined) return;
    const start = frame.start ?? this.offsetAt(i);
    if (frame.context === 'test') this.closedTestPlaceholders(frame, start);
    if (this.settings.recording) return;
    const raw = frame.raw;
    const marks = frame.rawMarks ?? [];
    switch (frame.context) {
      case 'arith':
        this.region({
          kind: 'arithmetic',
          atoms: atomsOf(raw.slice(0, -2), marks),
          offset: start,
          where: '(( … ))',
        });
        break;
      case 'arith-bracket':
        this.region({
          kind: 'arithmetic',
          atoms: atomsOf(raw.slice(0, -1), marks),
          offset: start,
          where: '$[ … ]',
        });
        break;
      case 'test':
        this.closedTest(raw.slice(0, -2), marks, start);
        break;
      case 'param':
        this.closedParameter(raw.slice(0, -1), marks, start);
        break;
      case 'backtick': {
        const taint = this.flow.taintOf(withoutPlaceholders(atomsOf(raw.slice(0, -1), marks)), true);
        if (isTainted(taint)) {
          this.report(
            `backticks that use a variable holding ${this.describeTaint(taint)}: what runs inside cannot be followed; write $( … )`,
            start,
          );
        }
        break;
      }
    }
  }

  /** A placeholder in `[[ … ]]`: quoted or not, an operand of -eq is arithmetic and one of -v a name. */
  private closedTestPlaceholders(frame: Frame, start: number): void {
    const text = frame.text!.replace(/\\\n/g, '');
    const placeholders = frame.placeholders ?? [];
    const names = NAME_TEST.test(text);
    const arithmetic = ARITHMETIC_TEST.test(text);
    const refused = placeholders.find((name) => names || (arithmetic && !this.settings.integer(name)));
    if (refused !== undefined) {
      this.report(
        `{${refused}} inside [[ … ]] with an arithmetic comparison or -v: bash evaluates such operands as code; compare inside the command instead, or declare it as an integer in the schema (type: integer)`,
        this.placeholderOffset(refused, start),
      );
    } else if (arithmetic) for (const name of placeholders) this.integers.add(name);
  }

  private closedTest(raw: string, marks: readonly Atom[], start: number): void {
    // each primary between && and || on its own: [[ $name == x && $n -gt 3 ]] compares only n as a number
    let markIndex = 0;
    for (const primary of raw.replace(/\\\n/g, '').split(/&&|\|\|/)) {
      const count = [...primary].filter((c) => c === '\u0001').length;
      const primaryMarks = marks.slice(markIndex, markIndex + count);
      markIndex += count;
      if (ARITHMETIC_TEST.test(primary)) {
        const operands = primary.replace(ARITHMETIC_TEST, ' ');
        this.region({
          kind: 'arithmetic',
          atoms: atomsOf(operands, primaryMarks),
          offset: start,
          where: '[[ … ]]',
        });
      } else if (NAME_TEST.test(primary)) {
        const operand = primary.replace(/^[\s(!]*-[vR]\s+/, '').trim();
        const subscript = /^[A-Za-z_]\w*\[(.*)\]$/s.exec(operand)?.[1];
        const atoms =
          subscript !== undefined
            ? atomsOf(subscript, primaryMarks)
            : /^[A-Za-z_]\w*$/.test(operand)
              ? []
              : atomsOf(operand, primaryMarks);
        this.region({ kind: 'code', atoms, offset: start, where: '[[ -v … ]]' });
      }
    }
  }

  private closedParameter(body: string, marks: readonly Atom[], start: number): void {
    const { prefix, name, rest } = splitParameter(body);
    let cursor = 0;
    const take = (text: string) => {
      const count = [...text].filter((c) => c === '\u0001').length;
      const taken = marks.slice(cursor, cursor + count);
      cursor += count;
      return taken;
    };
    take(body.slice(0, body.length - rest.length));
    if (prefix === '!' && !/^[@*]/.test(rest) && !/^\[[@*]\]/.test(rest)) {
      this.region({
        kind: 'code',
        atoms: [{ kind: 'var', name }],
        offset: start,
        where: `\${!${name}} (a variable named by a value)`,
        value: true,
      });
    }
    let after = rest;
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      const subscript = rest.slice(1, close === -1 ? rest.length : close);
      if (subscript !== '@' && subscript !== '*') {
        this.region({
          kind: 'arithmetic',
          atoms: atomsOf(subscript, take(subscript)),
          offset: start,
          where: `\${${name}[…]}`,
        });
      }
      after = close === -1 ? '' : rest.slice(close + 1);
    }
    if (/^:[^-=?+]/.test(after) || after === ':') {
      this.region({
        kind: 'arithmetic',
        atoms: atomsOf(after.slice(1), take(after)),
        offset: start,
        where: `\${${name}:…}`,
      });
    } else if (/^@P/.test(after)) {
      this.region({
        kind: 'code',
        atoms: [{ kind: 'var', name }],
        offset: start,
        where: `\${${name}@P} (prompt expansion)`,
        value: true,
      });
    }
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
    if (this.settings.recording) return;
    for (const problem of result.problems) this.report(`in the code of ${where}: ${problem.message}`, offset);
    for (const [name, exposure] of result.options)
      this.options.set(name, mergeExposure(this.options.get(name), exposure));
    for (const name of result.integers) this.integers.add(name);
  }

  /** A place where bash evaluates text: refused when it can reach a value, unless all of it is a schema integer. */
  private region(region: Region & { value?: boolean }): void {
    if (region.code !== undefined) {
      this.nested(region.code, region.offset, region.where);
      return;
    }
    if (region.kind === 'source') {
      this.report(
        `'${region.where}' runs a file in the template's own shell, where $1, $2 … hold the values and every variable is visible: what it does with them cannot be followed; run it as a program (bash FILE) or drop it`,
        region.offset,
      );
      return;
    }
    const atoms = withoutPlaceholders(region.atoms);
    if (atoms.length === 0) return;
    const taint = region.value ? this.flow.taintOf(atoms, false) : this.flow.taintOf(atoms, true);
    if (!isTainted(taint) && !taint.output) return;
    if (region.kind === 'arithmetic' && this.allInteger(taint)) {
      this.addIntegers(taint);
      return;
    }
    const what = region.kind === 'arithmetic' ? 'as arithmetic' : 'as code or as a variable name';
    const fix =
      region.kind === 'arithmetic'
        ? `; declare ${[...taint.sources].map((s) => `{${s}}`).join(', ') || 'the value'} as an integer in the tool's schema (type: integer), or keep the value out of arithmetic`
        : '';
    this.report(
      `${region.where} evaluates ${this.culprits(atoms, region.value === true)} ${what}, and it can hold ${this.describeTaint(taint)}: bash runs the $( … ) in a value such as a[$(cmd)] there${fix}`,
      region.offset,
    );
  }

  /** The variables of `atoms` that hold a value, for messages. */
  private culprits(atoms: readonly Atom[], value: boolean): string {
    const names = new Set<string>();
    for (const atom of atoms) {
      if (atom.kind === 'var' || atom.kind === 'mention') {
        const taint = value ? this.flow.valueOf(atom.name) : this.flow.evaluationOf(atom.name);
        if (isTainted(taint) || taint.output)
          names.add(/^[0-9@*]$/.test(atom.name) ? `$${atom.name}` : atom.name);
      } else if (atom.kind === 'output') names.add('$( … )');
      else if (atom.kind === 'names') names.add('a name spelled at run time');
    }
    return names.size > 0 ? [...names].map((n) => `'${n}'`).join(', ') : 'its text';
  }

  private describeTaint(taint: Taint): string {
    const parts = [...taint.sources].map((s) => `{${s}}`);
    if (taint.opaque) parts.push('anything (text read, printed or assigned at run time)');
    else if (taint.output && parts.length === 0) parts.push('the output of a command');
    return parts.join(', ');
  }

  private allInteger(taint: Taint): boolean {
    return (
      !taint.opaque &&
      !taint.output &&
      taint.sources.size > 0 &&
      [...taint.sources].every(this.settings.integer)
    );
  }

  private addIntegers(taint: Taint): void {
    for (const source of taint.sources) this.integers.add(source);
  }

  private placeholderOffset(name: string, after: number): number {
    for (let k = 0; k < this.items.length; k++) {
      const item = this.items[k];
      if (typeof item !== 'string' && item?.name === name && item.offset >= after) return item.offset;
    }
    return after;
  }
}

function withoutPlaceholders(atoms: readonly Atom[]): Atom[] {
  return atoms.filter((atom) => atom.kind !== 'placeholder');
}
