import { inspect, stripVTControlCharacters } from 'node:util';
import type { Style } from '../src/style.js';

/** A styler that always colors, with the escape codes `styleText` writes (tests run without a terminal). */
export const ansi: Style = (format, text) => {
  const formats = Array.isArray(format) ? format : [format];
  return formats.reduceRight((inner, f) => {
    const [open, close] = inspect.colors[f as string] ?? [0, 0];
    return `\x1b[${open}m${inner}\x1b[${close}m`;
  }, text);
};

/** A styler that colors nothing, as with NO_COLOR. */
export const plain: Style = (_format, text) => text;

export const strip = (text: string): string => stripVTControlCharacters(text);
