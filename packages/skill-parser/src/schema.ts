import { z } from 'zod';
import type { Reporter } from './diagnostics.js';
import type { JsonSchemaObject } from './types.js';
import { zodReason } from './values.js';

const node = z.record(z.string(), z.unknown());

/** What "an object JSON Schema" means here: what every provider accepts as a function's parameters. */
const objectSchema = z.looseObject({
  type: z.literal('object', { error: 'top-level `type` must be `object`' }),
  properties: z.record(z.string(), node, { error: '`properties` must map names to schemas' }).optional(),
  required: z.array(z.string(), { error: '`required` must be a list of property names' }).optional(),
});

export function checkSchema(
  value: unknown,
  reporter: Reporter,
  start: number,
  end: number,
): JsonSchemaObject | undefined {
  const parsed = objectSchema.safeParse(value);
  if (!parsed.success) {
    reporter.report(
      'tool-invalid-schema',
      `Schema is not an object JSON Schema: ${zodReason(parsed.error)}`,
      start,
      end,
    );
    return undefined;
  }
  return parsed.data as JsonSchemaObject;
}
