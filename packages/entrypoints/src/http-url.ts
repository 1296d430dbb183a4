import { argumentText, argumentValue } from './args.js';
import { EntrypointError } from './errors.js';
import { parseTemplate, placeholderNames, type TemplatePart } from './template.js';
import type { JsonSchemaObjectLike } from './types.js';

export interface UrlTemplate {
  origin: string;
  parts: TemplatePart[];
  names: string[];
}

const ORIGIN = /^(https?):\/\/([^/?#\s]+)(?=[/?#]|$)/i;

/**
 * Parses the URL of `http:get <url>`. The origin (scheme, host, port) must be literal text before the first
 * placeholder: arguments are only ever encoded into the path, query or fragment.
 */
export function parseUrlTemplate(url: string, where: string): UrlTemplate {
  const parts = parseTemplate(url, where);
  const first = parts[0];
  const prefix = first?.kind === 'text' ? first.text : '';
  const match = ORIGIN.exec(prefix);
  if (!match || (match[0].length === prefix.length && parts.length > 1)) {
    throw new EntrypointError(
      'bad-template',
      `${where}: the URL must start with a literal http:// or https:// origin followed by '/', '?' or '#' before any {placeholder}`,
    );
  }
  let origin: string;
  try {
    origin = new URL(match[0]).origin;
  } catch (cause) {
    throw new EntrypointError('bad-template', `${where}: '${match[0]}' is not a valid URL origin`, { cause });
  }
  return { origin, parts, names: placeholderNames(parts) };
}

/** encodeURIComponent leaves !'()* alone; encode them too so no value ever carries URL syntax. */
export function encodeComponent(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const isDotSegment = (segment: string) => /^(\.|%2e){1,2}$/i.test(segment);

export function buildUrl(
  template: UrlTemplate,
  args: Record<string, unknown>,
  schema?: JsonSchemaObjectLike,
): URL {
  let built = '';
  let shape = ''; // the same URL with each value replaced by 'x': shows which segments an argument formed
  for (const part of template.parts) {
    if (part.kind === 'text') {
      built += part.text;
      shape += part.text;
    } else {
      built += encodeComponent(argumentText(argumentValue(args, part.name, schema)));
      shape += 'x';
    }
  }
  const path = (s: string) => s.slice(template.origin.length).split(/[?#]/, 1)[0]!.split('/');
  const builtSegments = path(built);
  const shapeSegments = path(shape);
  builtSegments.forEach((segment, k) => {
    if (isDotSegment(segment) && !isDotSegment(shapeSegments[k] ?? '')) {
      throw new EntrypointError(
        'bad-argument',
        `an argument forms the path segment '${segment}', which would move up the URL path`,
      );
    }
  });
  const url = new URL(built);
  if (url.origin !== template.origin) {
    // Unreachable while values are percent-encoded; kept as the last line of defence.
    throw new EntrypointError('bad-argument', `arguments changed the URL origin to ${url.origin}`);
  }
  return url;
}
