import { z } from 'zod';

// `birdie mcp`'s check of a request's params: the SDK's own schema decides, but a mismatch is answered as the client's
// mistake (-32602, one sentence naming the field) instead of the SDK's -32603 with zod's issue list as its message.

interface RequestSchema {
  shape: { method: { value: string } };
  safeParse(
    value: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: Issue[] } };
}

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  expected?: string;
}

/** "Invalid input: expected string, received number" → "expected string, received number". */
function reason(issue: Issue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * For one request schema of the SDK: its method, a schema that lets any params through to the handler (so the SDK's
 * parse before the handler never refuses), and the check the handler runs first, throwing an error with the code `invalidParams`.
 */
export function paramsCheck(
  schema: RequestSchema,
  invalidParams: number,
): { method: string; lenient: unknown; check: (request: unknown) => unknown } {
  const method = schema.shape.method.value;
  const lenient = z.looseObject({ method: z.literal(method) });
  const check = (request: unknown) => {
    const parsed = schema.safeParse(request);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    // The SDK answers an error's own `code` and `message` (an McpError would prefix "MCP error -32602: ").
    throw Object.assign(
      new Error(`Invalid params of ${method}: ${where}${issue ? reason(issue) : 'not as expected'}`),
      { code: invalidParams },
    );
  };
  return { method, lenient, check };
}
