import { fileReferenceExposure } from './bash-file-references.js';
import {
  EXPRESSION_OPERATORS,
  mergeExposure,
  NO_END_OF_OPTIONS,
  type OptionExposure,
} from './bash-options.js';
import { EntrypointError } from './errors.js';
import type { EntrypointProblem } from './target.js';
import { parseTemplate } from './template.js';

/** A piece of one argv word: literal text, or the whole value of an argument. */
export type Piece = { kind: 'text'; text: string } | { kind: 'placeholder'; name: string };

export interface ArgvWord {
  pieces: Piece[];
  /** Offset of the word's first character in the target. */
  offset: number;
}

export interface ContainerTemplate {
  image: string;
  /** The command and its arguments: each becomes exactly one argv word, placeholders replaced by their values. */
  words: ArgvWord[];
  /** Placeholder names in first-use order. */
  names: string[];
  /** Placeholders that stand alone where the command may read options (see bash-options.ts). */
  exposures: Map<string, OptionExposure>;
}

/**
 * A container image reference as the runtimes accept it: `[registry[:port]/]path[:tag][@sha256:…]`. It can never
 * start with `-` (an option) or hold a placeholder: the image is the skill author's choice, not the model's.
 */
const IMAGE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::\d{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::\w[\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/**
 * Splits `IMAGE command {arg} 'two words' --flag={x}` into the image and argv words. Words are separated by blanks;
 * `'…'` and `"…"` group text into one word (no escapes, nothing expands: there is no shell); `{name}` is an
 * argument's value, which stays inside its word whatever it contains. `{{`/`}}` are literal braces.
 */
export function parseContainerTemplate(
  target: string,
  where: string,
): {
  problems: EntrypointProblem[];
  template?: ContainerTemplate;
  placeholders: { name: string; offset: number }[];
} {
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(target, where);
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    const offset = error.offset === undefined ? {} : { offset: error.offset };
    return { problems: [{ code: error.code, message: error.message, ...offset }], placeholders: [] };
  }
  const placeholders = parts.flatMap((p) =>
    p.kind === 'placeholder' ? [{ name: p.name, offset: p.offset }] : [],
  );
  const words: ArgvWord[] = [];
  let word: ArgvWord | undefined;
  let quote: { char: string; offset: number } | undefined;
  const add = (piece: Piece, offset: number) => {
    word ??= { pieces: [], offset };
    const last = word.pieces[word.pieces.length - 1];
    if (piece.kind === 'text' && last?.kind === 'text') last.text += piece.text;
    else word.pieces.push(piece);
  };
  const end = () => {
    if (word) words.push(word);
    word = undefined;
  };
  for (const part of parts) {
    if (part.kind === 'placeholder') {
      add({ kind: 'placeholder', name: part.name }, part.offset);
      continue;
    }
    for (let k = 0; k < part.text.length; k++) {
      const ch = part.text[k]!;
      const offset = part.offsets[k]!;
      if (quote) {
        if (ch === quote.char) quote = undefined;
        else add({ kind: 'text', text: ch }, offset);
      } else if (ch === "'" || ch === '"') {
        quote = { char: ch, offset };
        word ??= { pieces: [], offset };
      } else if (/\s/.test(ch)) {
        end();
      } else {
        add({ kind: 'text', text: ch }, offset);
      }
    }
  }
  if (quote) {
    const message = `${where}: unterminated ${quote.char} at column ${quote.offset + 1}`;
    return { problems: [{ code: 'bad-template', message, offset: quote.offset }], placeholders };
  }
  end();

  const problems: EntrypointProblem[] = [];
  const [imageWord, commandWord] = words;
  const image = imageWord && literal(imageWord);
  if (!imageWord || !commandWord) {
    const message = `${where}: expected container:IMAGE command {args} (an image, then the command to run in it)`;
    return { problems: [{ code: 'bad-entrypoint', message, offset: 0 }], placeholders };
  }
  if (image === undefined || !IMAGE.test(image)) {
    problems.push({
      code: 'bad-entrypoint',
      message: `${where}: '${target.slice(imageWord.offset).split(/\s/)[0]}' is not an image reference written out in full ([registry/]name[:tag][@sha256:…]; no placeholders)`,
      offset: imageWord.offset,
    });
  }
  const command = literal(commandWord);
  if (command === undefined || command === '') {
    problems.push({
      code: 'bad-template',
      message: `${where}: the command after the image must be literal text: the model chooses arguments, never the program`,
      offset: commandWord.offset,
    });
  }
  if (problems.length > 0) return { problems, placeholders };
  const argv = words.slice(1);
  return {
    problems,
    placeholders,
    template: {
      image: image!,
      words: argv,
      names: [...new Set(placeholders.map((p) => p.name))],
      exposures: exposuresOf(command!, argv),
    },
  };
}

function literal(word: ArgvWord): string | undefined {
  if (word.pieces.some((p) => p.kind === 'placeholder')) return undefined;
  return word.pieces.map((p) => (p as { text: string }).text).join('');
}

/**
 * A word that is one placeholder alone, before a literal `--`, is where the command may read a value as an option
 * (`ls {path}` with `--help`); glued to text (`--name={x}`, `./{x}`) it cannot start an option. find, test and [
 * read operators anywhere and ignore `--`.
 */
function exposuresOf(command: string, argv: readonly ArgvWord[]): Map<string, OptionExposure> {
  const name = command.slice(command.lastIndexOf('/') + 1);
  const operators = EXPRESSION_OPERATORS[name];
  const exposures = new Map<string, OptionExposure>();
  let ended = false;
  for (const word of argv.slice(1)) {
    if (!NO_END_OF_OPTIONS.has(name) && literal(word) === '--') ended = true;
    const [only, ...rest] = word.pieces;
    if (only?.kind !== 'placeholder' || rest.length > 0) continue;
    if (ended && !operators) continue;
    const exposure: OptionExposure = {
      command: name,
      ...(ended ? {} : { rule: 'dash' as const }),
      ...(operators ? { operators } : {}),
    };
    exposures.set(only.name, mergeExposure(exposures.get(only.name), exposure));
  }
  // values a program reads as a file's name (`curl -d @FILE`), read by the same check as a bash: template's
  argv.forEach((word, w) => {
    word.pieces.forEach((piece, p) => {
      if (piece.kind !== 'placeholder') return;
      const source = [
        ...argv.slice(0, w).map((before) => wordSource(before.pieces)),
        wordSource(word.pieces.slice(0, p)),
      ];
      const reference = fileReferenceExposure(source.join(' '));
      if (reference) exposures.set(piece.name, mergeExposure(exposures.get(piece.name), reference));
    });
  });
  return exposures;
}

/** A word as shell source for bash-options' reader: text single-quoted, a value as \u0001 (as bash-command.ts marks it). */
function wordSource(pieces: readonly Piece[]): string {
  return pieces.map((p) => (p.kind === 'text' ? `'${p.text.replaceAll("'", "'\\''")}'` : '\u0001')).join('');
}
