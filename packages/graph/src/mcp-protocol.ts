/**
 * The MCP protocol's shapes that @birdie/graph's public API carries (sampling and elicitation requests, resources,
 * prompts, a server's capabilities), declared here after the MCP specification rather than imported from
 * `@modelcontextprotocol/sdk`: the SDK is an optional peer, so a project that does not use MCP has not installed it, and
 * its compiler must not need it to read our declarations. Each is written as wide as what the SDK hands us (the code that
 * passes the SDK's values on checks that at compile time) and only as detailed as birdie and its front ends read it.
 * Object shapes are `type` aliases, not interfaces, so a value of one is also a plain JSON object to the SDK's types.
 */

/** Extra fields the protocol lets either side attach. */
type McpMeta = { [key: string]: unknown };

export type McpLoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

export type McpRole = 'user' | 'assistant';

export type McpTextContent = { type: 'text'; text: string; _meta?: McpMeta };
export type McpImageContent = { type: 'image'; data: string; mimeType: string; _meta?: McpMeta };
export type McpAudioContent = { type: 'audio'; data: string; mimeType: string; _meta?: McpMeta };

/** A resource's contents: text, or binary data in base64 (`blob`). */
export type McpResourceContent =
  | { uri: string; mimeType?: string; text: string; _meta?: McpMeta }
  | { uri: string; mimeType?: string; blob: string; _meta?: McpMeta };

export type McpResource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  _meta?: McpMeta;
};

export type McpResourceTemplate = {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: McpMeta;
};

/** What a prompt's message or a tool's result may carry. */
export type McpContentBlock =
  | McpTextContent
  | McpImageContent
  | McpAudioContent
  | ({ type: 'resource_link' } & McpResource)
  | { type: 'resource'; resource: McpResourceContent; _meta?: McpMeta };

/** What a sampling message may carry: content, or a tool call of the model and its result. */
export type McpSamplingContent =
  | McpTextContent
  | McpImageContent
  | McpAudioContent
  | { type: 'tool_use'; id: string; name: string; input: { [key: string]: unknown }; _meta?: McpMeta }
  | {
      type: 'tool_result';
      toolUseId: string;
      content: McpContentBlock[];
      structuredContent?: { [key: string]: unknown };
      isError?: boolean;
      _meta?: McpMeta;
    };

export type McpSamplingMessage = {
  role: McpRole;
  content: McpSamplingContent | McpSamplingContent[];
  _meta?: McpMeta;
};

/** A server's `sampling/createMessage` params. */
export type McpSamplingRequest = {
  messages: McpSamplingMessage[];
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  modelPreferences?: { [key: string]: unknown };
  metadata?: object;
  _meta?: McpMeta;
};

/** The answer to a sampling request: the model's message and which model wrote it. */
export type McpSamplingResult = McpSamplingMessage & {
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
};

/** One field of an elicitation form (a JSON Schema of a string, number, boolean or enum). */
export type McpElicitationField = {
  type: string;
  title?: string;
  description?: string;
  [key: string]: unknown;
};

/** A server's `elicitation/create` params: a form (`requestedSchema`) or, in `url` mode, a page to open. */
export type McpElicitationRequest =
  | {
      mode?: 'form';
      message: string;
      requestedSchema: {
        type: 'object';
        properties: { [key: string]: McpElicitationField };
        required?: string[];
        $schema?: string;
      };
      _meta?: McpMeta;
    }
  | { mode: 'url'; message: string; elicitationId: string; url: string; _meta?: McpMeta };

export type McpElicitationResult = {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: string | number | boolean | string[] };
  _meta?: McpMeta;
};

/** What a server declares it supports (`initialize`). */
export type McpServerCapabilities = {
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  [key: string]: unknown;
};

export type McpPrompt = {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }>;
  _meta?: McpMeta;
};

/** `prompts/get`: the prompt's messages, its arguments filled in. */
export type McpPromptResult = {
  description?: string;
  messages: Array<{ role: McpRole; content: McpContentBlock }>;
  _meta?: McpMeta;
};

/** `resources/read`: the resource's contents (one or more parts). */
export type McpResourceContents = {
  contents: McpResourceContent[];
  _meta?: McpMeta;
};
