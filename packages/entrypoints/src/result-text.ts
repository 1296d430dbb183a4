import { EntrypointError } from './errors.js';
import { capText } from './output-cap.js';

/** A function's result as text for the model: strings as they are, anything else as indented JSON. */
export function resultText(
  value: unknown,
  limit: number,
  where: string,
): { output: string; truncated: boolean } {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = '';
  else {
    try {
      text = JSON.stringify(value, null, 2) ?? '';
    } catch (cause) {
      throw notSerialisable(where, cause);
    }
  }
  const capped = capText(text, limit);
  return { output: capped.text, truncated: capped.truncated };
}

export function notSerialisable(where: string, cause?: unknown): EntrypointError {
  return new EntrypointError('bad-output', `${where} returned a value that is not JSON-serialisable`, {
    ...(cause === undefined ? {} : { cause }),
  });
}
