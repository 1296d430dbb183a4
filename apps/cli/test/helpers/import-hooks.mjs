import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.BIRDIE_TRACE_FILE) appendFileSync(process.env.BIRDIE_TRACE_FILE, `${result.url}\n`);
  return result;
}
