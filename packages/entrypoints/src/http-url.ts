import { argumentText, argumentValue } from './args.js';
import { EntrypointError } from './errors.js';
import { REDACTED } from './redact.js';
import type { EntrypointProblem } from './target.js';
import { parseTemplate, placeholderNames, type TemplatePart } from './template.js';
import type { JsonSchemaObjectLike } from './types.js';

export interface UrlTemplate {
  origin: string;
  parts: TemplatePart[];
  names: string[];
  /** `name=value` pairs of the query written literally in the template (an API key, say): kept out of results. */
  literalQuery: [name: string, value: string][];
}

const ORIGIN = /^(https?):\/\/([^/?#\s]+)(?=[/?#]|$)/i;

/**
 * Parses the URL of `http:get <url>`. The origin (scheme, host, port) must be literal text before the first
 * placeholder: arguments are only ever encoded into the path, query or fragment. Credentials (`user:password@`)
 * have no place in a template: a SKILL.md is shared, shown and logged. Offsets are into `url`; `where` (the
 * redacted entrypoint) starts each message.
 */
export function analyseUrlTemplate(
  url: string,
  where: string,
): { problems: EntrypointProblem[]; template?: UrlTemplate } {
  let parts: TemplatePart[];
  try {
    parts = parseTemplate(url, where);
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return { problems: [{ code: error.code, message: error.message, ...offsetOf(error.offset) }] };
  }
  const first = parts[0];
  const prefix = first?.kind === 'text' ? first.text : '';
  const match = ORIGIN.exec(prefix);
  if (!match || (match[0].length === prefix.length && parts.length > 1)) {
    const message = `${where}: the URL must start with a literal http:// or https:// origin followed by '/', '?' or '#' before any {placeholder}`;
    return { problems: [{ code: 'bad-template', message, offset: 0 }] };
  }
  const authority = match[2]!;
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const start = match[1]!.length + 3;
    const message = `${where}: the URL carries credentials ('${authority.includes(':') && authority.indexOf(':') < at ? 'user:password' : 'user'}@' before the host); a SKILL.md is shared, shown and logged, so keep secrets out of it (pass them as request headers from the application)`;
    return {
      problems: [
        { code: 'bad-template', message, offset: first?.kind === 'text' ? first.offsets[start]! : start },
      ],
    };
  }
  let origin: string;
  try {
    origin = new URL(match[0]).origin;
  } catch {
    return {
      problems: [
        { code: 'bad-template', message: `${where}: '${match[0]}' is not a valid URL origin`, offset: 0 },
      ],
    };
  }
  return {
    problems: [],
    template: { origin, parts, names: placeholderNames(parts), literalQuery: literalQuery(parts) },
  };
}

const offsetOf = (offset: number | undefined) => (offset === undefined ? {} : { offset });

/**
 * The query's `name=value` pairs in which neither side holds a placeholder and the value is long enough to be a key
 * (short ones such as `format=json` or `v=2` are settings, and replacing them in a body would garble it).
 */
function literalQuery(parts: readonly TemplatePart[]): [string, string][] {
  const shape = parts.map((p) => (p.kind === 'text' ? p.text : '\u0001')).join('');
  const query = shape.split('#', 1)[0]!.split('?').slice(1).join('?');
  const pairs: [string, string][] = [];
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || pair.includes('\u0001') || pair.length - eq - 1 < 8) continue;
    pairs.push([pair.slice(0, eq), pair.slice(eq + 1)]);
  }
  return pairs;
}

/** `text` with every literal query pair of the template shown as `name=REDACTED` (a server may echo the URL). */
export function redactLiteralQuery(text: string, template: UrlTemplate): string {
  let out = text;
  for (const [name, value] of template.literalQuery) {
    for (const form of new Set([value, encodeURIComponent(value)]))
      out = out.split(`${name}=${form}`).join(`${name}=${REDACTED}`);
  }
  return out;
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
