import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ProviderError } from '../errors.js';
import { parseJson } from '../json-position.js';
import { parseScript, type Script } from './script.js';

/** Reads and validates a JSON script file; every problem is a ProviderError naming the file (and line/column). */
export async function loadScript(path: string): Promise<Script> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const why = (cause as NodeJS.ErrnoException).code ?? 'read error';
    throw new ProviderError('script-unreadable', `Cannot read script ${file} (${why})`, { cause, file });
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new ProviderError(
      'script-invalid',
      `Invalid JSON in script ${file} at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
      { file, line: parsed.line, column: parsed.column },
    );
  }
  return parseScript(parsed.value, `script ${file}`, file);
}
