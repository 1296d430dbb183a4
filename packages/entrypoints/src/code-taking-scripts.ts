/*
 * Whether a literal awk program or sed script runs commands. Both languages are small enough to read for that; when
 * in doubt (something that does not parse) the answer is yes, so the template is reported rather than trusted.
 */

/**
 * awk runs commands through `system(…)`, `cmd | getline`, `print … | cmd`, `printf … | cmd` and gawk's `|&`.
 * Strings and regular expressions are removed first, so `/a|b/` and `"a|b"` are not pipes; `||` is not one.
 */
export function awkRunsCommands(program: string): boolean {
  const bare = program
    .replace(/"(?:\\.|[^"\\])*"/g, '""')
    .replace(/(^|[\s(,!~{};&|])\/(?:\\.|\[(?:\\.|[^\]\\])*\]|[^/\\\n])*\//g, '$1//')
    .replace(/#[^\n]*/g, '');
  return /\bsystem\s*\(/.test(bare) || /\|&/.test(bare) || /(^|[^|])\|(?!\|)/.test(bare);
}

/**
 * GNU sed runs commands with the `e` command and the `e` flag of `s`. The script is read command by command:
 * addresses, then the command letter; `s`/`y` bodies are skipped by their delimiter, text and file arguments to the
 * end of the line.
 */
export function sedRunsCommands(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipBlank = () => {
    while (i < n && /[\s;]/.test(script[i]!)) i += 1;
  };
  // reads a delimited section starting after its opening delimiter; returns false when it never closes
  const section = (delimiter: string): boolean => {
    while (i < n && script[i] !== delimiter) {
      if (script[i] === '\\') i += 1;
      else if (script[i] === '\n' && delimiter !== '\n') return false;
      i += 1;
    }
    if (i >= n) return false;
    i += 1;
    return true;
  };
  while (true) {
    skipBlank();
    if (i >= n) return false;
    // addresses: numbers, $, /re/, \cREc, first~step, addr1,addr2, +N, ~N, and a trailing !
    for (;;) {
      const ch = script[i];
      if (ch === undefined) return false;
      if (/[0-9$,~+!\s]/.test(ch)) i += 1;
      else if (ch === '/') {
        i += 1;
        if (!section('/')) return true;
        while (script[i] === 'I' || script[i] === 'M') i += 1;
      } else if (ch === '\\') {
        const delimiter = script[i + 1];
        if (delimiter === undefined) return true;
        i += 2;
        if (!section(delimiter)) return true;
      } else break;
    }
    const command = script[i]!;
    i += 1;
    if (command === 'e') return true;
    if (command === '{' || command === '}' || command === '=') continue;
    if (command === 's' || command === 'y') {
      const delimiter = script[i];
      if (delimiter === undefined) return true;
      i += 1;
      if (!section(delimiter) || !section(delimiter)) return true;
      if (command === 'y') continue;
      const flags = /^[^;\n}]*/.exec(script.slice(i))![0];
      // flags: g p e i I m M digits, and w FILE (to the end of the line)
      const beforeWrite = flags.split('w')[0]!;
      if (beforeWrite.includes('e')) return true;
      i += flags.includes('w') ? lineLength(script, i) : flags.length;
    } else if ('aicrwRWbtTvlLqQ:#'.includes(command)) {
      // text, a file name, a label: to the end of the line (b/t/T/: labels also end at ;)
      i += /[btT:vlLqQ]/.test(command) ? /^[^;\n}]*/.exec(script.slice(i))![0].length : lineLength(script, i);
    } else if (!'dDgGhHnNpPxzF'.includes(command)) {
      return true; // something this reader does not know: report rather than trust
    }
  }
}

function lineLength(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return (end === -1 ? text.length : end) - from;
}
