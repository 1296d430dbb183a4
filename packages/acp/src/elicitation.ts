import type {
  AgentContext,
  ClientCapabilities,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationSchema,
} from '@agentclientprotocol/sdk';
import { methods } from '@agentclientprotocol/sdk';
import type { McpElicitationRequest, McpElicitationResult, McpTurnHandlers } from '@birdie/graph';
import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';

type McpForm = McpElicitationRequest & { requestedSchema: Record<string, unknown> };
type Content = NonNullable<McpElicitationResult['content']>;

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = ((addFormatsPlugin as { default?: unknown }).default ?? addFormatsPlugin) as unknown as (
  ajv: Ajv,
) => Ajv;
let validator: Ajv | undefined;

/**
 * Whether `content` is what `schema` asks for (MCP's form schemas: flat objects of strings, numbers, booleans and
 * enums, with `email`/`uri`/`date`/`date-time` formats). Returns the problems, or undefined when it fits.
 */
export function formContentProblems(schema: Record<string, unknown>, content: unknown): string | undefined {
  validator ??= addFormats(new Ajv({ allErrors: true, strict: false }));
  let check: ReturnType<Ajv['compile']>;
  try {
    check = validator.compile(schema);
  } catch (error) {
    return `the form's schema cannot be checked (${error instanceof Error ? error.message : String(error)})`;
  }
  if (check(content)) return undefined;
  return validator.errorsText(check.errors, { dataVar: 'content' });
}

/** True when the editor said at initialize that it can show a form (`clientCapabilities.elicitation.form`). */
export function canElicitForms(capabilities: ClientCapabilities | undefined): boolean {
  return Boolean(capabilities?.elicitation?.form);
}

/**
 * An MCP server's form, asked of the editor through ACP's `elicitation/create`, scoped to the session. An accepted
 * answer is returned only when its content fits the server's schema (an editor's form may not check it): otherwise,
 * and when the editor fails or the turn is cancelled, the server hears decline or cancel, never unchecked values.
 */
export function acpElicit(
  client: AgentContext,
  sessionId: string,
  signal: AbortSignal,
  log: (line: string) => void,
): NonNullable<McpTurnHandlers['elicit']> {
  return async (request, info) => {
    // URL elicitation never reaches a turn (the MCP client declines it); anything but a form is declined here too.
    if (!('requestedSchema' in request) || !request.requestedSchema) return { action: 'decline' };
    const form = request as McpForm;
    const asked: CreateElicitationRequest = {
      mode: 'form',
      sessionId,
      message: `${info.server}: ${form.message}`,
      // MCP's form schema is the subset ACP's form mode describes (flat object of primitive and enum fields).
      requestedSchema: form.requestedSchema as ElicitationSchema,
    };
    let answer: CreateElicitationResponse;
    try {
      // A cancelled turn stops waiting at once, whether or not the client answers the withdrawn form.
      answer = await client.request(methods.client.elicitation.create, asked, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
    } catch (error) {
      if (signal.aborted) return { action: 'cancel' };
      log(
        `birdie acp: the editor did not answer ${info.server}'s form: ${error instanceof Error ? error.message : String(error)}`,
      );
      return { action: 'cancel' };
    }
    if (signal.aborted) return { action: 'cancel' };
    if (answer.action === 'decline' || answer.action === 'cancel') return { action: answer.action };
    if (answer.action !== 'accept') return { action: 'decline' };
    const content = ('content' in answer && answer.content ? answer.content : {}) as Content;
    const problems = formContentProblems(form.requestedSchema, content);
    if (problems) {
      log(
        `birdie acp: the editor's answer to ${info.server}'s form does not fit its schema (${problems}): declined`,
      );
      return { action: 'decline' };
    }
    return { action: 'accept', content };
  };
}
