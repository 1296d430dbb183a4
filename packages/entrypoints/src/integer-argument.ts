/**
 * Why `value` is not the integer the schema asks for, or undefined. It is checked before a `bash:` template whose
 * value reaches arithmetic runs: only a plain decimal integer is inert there (`a[$(cmd)]` would run `cmd`).
 */
export function integerProblem(
  name: string,
  value: unknown,
  property: Readonly<Record<string, unknown>> = {},
): string | undefined {
  let number: number | undefined;
  // An integer, but one a double cannot hold exactly (a JSON number was rounded when read; digits past 2^53).
  let inexact = false;
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (Number.isSafeInteger(value)) number = value;
    else inexact = true;
  } else if (typeof value === 'string' && /^-?(0|[1-9][0-9]*)$/.test(value)) {
    if (Number.isSafeInteger(Number(value))) number = Number(value);
    else inexact = true;
  }
  const shown = JSON.stringify(
    typeof value === 'string' && value.length > 40 ? `${value.slice(0, 40)}…` : value,
  );
  if (inexact) {
    return `argument "${name}" is ${shown}, beyond the integers a tool can be given exactly (±${Number.MAX_SAFE_INTEGER}); nothing was run`;
  }
  if (number === undefined) {
    return `argument "${name}" is ${shown}, but the schema asks for an integer (plain decimal digits); nothing was run`;
  }
  const below = (limit: unknown, exclusive: boolean) =>
    typeof limit === 'number' && (exclusive ? number! <= limit : number! < limit);
  const above = (limit: unknown, exclusive: boolean) =>
    typeof limit === 'number' && (exclusive ? number! >= limit : number! > limit);
  if (below(property.minimum, false) || below(property.exclusiveMinimum, true)) {
    return `argument "${name}" is ${number}, below the schema's minimum; nothing was run`;
  }
  if (above(property.maximum, false) || above(property.exclusiveMaximum, true)) {
    return `argument "${name}" is ${number}, above the schema's maximum; nothing was run`;
  }
  return undefined;
}
