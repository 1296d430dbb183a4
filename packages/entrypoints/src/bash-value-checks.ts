import {
  type Attributed,
  commandName,
  commandPositionProblem,
  expansionSplits,
  type PositionProblem,
} from './bash-command.js';
import { fileReferenceExposure } from './bash-file-references.js';
import type { Findings } from './bash-findings.js';
import { isTainted, type Taint } from './bash-flow.js';
import { optionExposure } from './bash-options.js';
import { commandOwner, type Frame, inDataHereDocument } from './bash-scan.js';
import { shellReadingInput } from './bash-shells.js';

/**
 * The checks for a value wherever it stands: a placeholder, an expansion of a variable that holds one, or command
 * output. Its position (an argument of eval, a command name, a subscript …), option exposure, word splitting
 * (`expansion` is how to write it quoted; absent for placeholders, which are always quoted), a subscript of a
 * compound array assignment, and a here-document that a shell runs.
 */
export function checkValue(
  findings: Findings,
  stack: readonly Frame[],
  attributed: Attributed,
  value: { label: string; taint: Taint; offset: number; expansion?: string },
): void {
  const { label, taint, offset, expansion } = value;
  const owner = commandOwner(stack);
  const frame = stack[stack.length - 1]!;
  if (frame.context === 'heredoc') {
    const shell = hereDocumentShell(frame);
    if (shell) findings.report(`${label} is in a here-document that '${shell}' runs as its script`, offset);
    return;
  }
  if (frame.context === 'heredoc-quoted' || frame.context === 'comment' || owner?.command === undefined)
    return;
  // In the body of a data here-document (`cat <<EOF`) a value is text the program prints: where bash evaluates it
  // there (`$(( … ))`) is checked where it stands (spellPlaceholder), and it is no word of a command.
  if (inDataHereDocument(stack, owner)) return;
  const integer = findings.allInteger(taint);
  const allow = (problem: PositionProblem | undefined) => {
    if (!problem) return;
    if (problem.arithmetic && integer) findings.addIntegers(taint);
    else findings.report(problem.message, offset);
  };
  const ownerIndex = stack.indexOf(owner);
  const array = stack.find((f, k) => f.array && k > ownerIndex);
  // an element of `x=( … )` stands where the assignment's value does
  const command = array ? owner.command.slice(0, array.outerLength) : owner.command;
  allow(commandPositionProblem(command, label, attributed));
  allow(dynamicCommandProblem(findings, command, label, attributed));
  if (array && array.subscript! > 0) {
    allow({
      message: `${label} inside an array subscript: bash evaluates subscripts as arithmetic, which runs code`,
      arithmetic: true,
    });
  }
  const exposure = optionExposure(command);
  if (exposure) findings.expose(taint, exposure);
  const reference = fileReferenceExposure(command);
  if (reference) findings.expose(taint, reference);
  if (expansion === undefined || !isTainted(taint)) return;
  const quoted = stack.slice(ownerIndex + 1).some((f) => f.context === 'double' || f.context === 'test');
  if (quoted || !expansionSplits(owner.command, array !== undefined)) return;
  if (integer) findings.addIntegers(taint);
  else
    findings.report(
      `${label} is not quoted: bash would split it into words and expand * and ? in it; write "${expansion}"`,
      offset,
    );
}

/** `bash <<EOF` and `cat <<EOF | sh` run the body: the shell on the line that declared the here-document. */
function hereDocumentShell(frame: Frame): string | undefined {
  const stages = (frame.line ?? '').split(/(?<!\|)\|(?![|&])/);
  const from = Math.max(
    stages.findIndex((stage) => stage.includes('<<')),
    0,
  );
  return stages
    .slice(from)
    .map((stage) => shellReadingInput(stage.trim()))
    .find(Boolean);
}

/** `$tool {x}`: the command is whatever the variable holds, so check each word the template assigns it. */
function dynamicCommandProblem(
  findings: Findings,
  command: string,
  label: string,
  attributed: Attributed,
): PositionProblem | undefined {
  if (!command.includes('$')) return undefined;
  const name = commandName(command);
  const variable = name && /^["']?\$\{?([A-Za-z_]\w*)\}?["']?$/.exec(name)?.[1];
  if (!variable) return undefined;
  const words = findings.flow.commandWords(variable);
  if (words === undefined) return undefined; // not assigned here: the user's environment chose it
  if (words === null) {
    return {
      message: `${label} is an argument of $${variable}, a command the template cannot know in advance`,
    };
  }
  for (const word of words) {
    const problem = commandPositionProblem(command.replace(name!, word), label, attributed);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * How a placeholder is spelled where it stands: a quoted reference to the copy of its positional parameter. Contexts
 * where no spelling keeps it data are reported (`report`) or, when the template cannot be scanned on, thrown (`fail`).
 */
export function spellPlaceholder(
  name: string,
  index: number,
  context: Frame['context'],
  after$: boolean,
  integer: boolean,
  report: (message: string) => void,
  fail: (message: string) => never,
): string {
  const ref = `\${birdie_${index}}`;
  const shown = `{${name}}`;
  const afterDollar = () => report(`'$' right before ${shown}; write \${{NAME}} for a shell variable`);
  switch (context) {
    case 'unquoted':
    case 'test':
      if (after$) afterDollar();
      return `"${ref}"`;
    case 'double':
    case 'heredoc':
      if (after$) afterDollar();
      return ref;
    case 'single':
      return `'"${ref}"'`;
    case 'ansi':
      return `'"${ref}"$'`;
    case 'backtick':
      return fail(`${shown} inside backticks; use $( … ) instead`);
    case 'param':
      if (!integer) report(`${shown} inside \${ … }: bash may evaluate it as an arithmetic subscript`);
      return ref;
    case 'arith':
    case 'arith-bracket':
      if (!integer) {
        report(
          `${shown} in an arithmetic context: bash evaluates the value as code there; declare it as an integer in the schema (type: integer) to allow it`,
        );
      }
      return ref;
    case 'heredoc-quoted':
      return fail(`${shown} inside a quoted here-document, where nothing is expanded`);
    case 'comment':
      return shown; // nothing runs in a comment
  }
}
