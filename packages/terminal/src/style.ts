import { stripVTControlCharacters, styleText } from 'node:util';
import type { Output } from './output.js';

type Format = Parameters<typeof styleText>[0];

/** Colors only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colorsOn(out: Output, env: NodeJS.ProcessEnv): boolean {
  return Boolean(out.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function styler(out: Output, env: NodeJS.ProcessEnv) {
  const on = colorsOn(out, env);
  return (format: Format, text: string): string => (on ? styleText(format, text) : text);
}

export type Style = ReturnType<typeof styler>;

/** Left-aligned columns separated by two spaces; the last column is never padded. */
export function table(rows: string[][], header?: string[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  const width = (cell: string) => stripVTControlCharacters(cell).length;
  for (const row of all) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  const pad = (cell: string, i: number) => cell + ' '.repeat(Math.max(0, widths[i]! - width(cell)));
  return `${all
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : pad(cell, i))).join('  '))
    .join('\n')}\n`;
}
