import type { ApiToken } from '@birdie/store';
import type { Context } from 'hono';
import type { ServeRuntime } from './runtime.js';

/** A skill a token holder may enable (`GET /v1/skills`), as the operator's policy allows it to API sessions. */
export interface SkillInfo {
  name: string;
  description: string;
  /** On in every new session without being asked for. */
  enabledByDefault: boolean;
  /** The skill brings an MCP server: its tools are known once it runs. */
  mcpServer: boolean;
  tools: Array<{
    name: string;
    description: string;
    /** Runs a raw command: it asks on every call, whatever the server's `--approval`. */
    raw: boolean;
    /** `always`: every call waits for the session's user to approve it (`POST …/approvals`); `never`: it runs. */
    approval: 'always' | 'never';
  }>;
}

/** `GET /v1/skills`: what the caller may name in `POST /v1/sessions {"enable": […]}`. */
export function listSkills(runtime: Pick<ServeRuntime, 'skills'>) {
  return async (c: Context<{ Variables: { token: ApiToken } }>) =>
    c.json({ skills: await runtime.skills(c.get('token').userId) });
}

/** The route's part of the OpenAPI document. */
export const skillsOpenApi = {
  schema: {
    type: 'object',
    required: ['name', 'description', 'enabledByDefault', 'mcpServer', 'tools'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      enabledByDefault: { type: 'boolean' },
      mcpServer: { type: 'boolean', description: 'Its tools come from an MCP server, known once it runs.' },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'description', 'raw', 'approval'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            raw: {
              type: 'boolean',
              description: "Runs a raw command: it asks on every call, whatever the server's approval mode.",
            },
            approval: {
              type: 'string',
              enum: ['always', 'never'],
              description:
                "`always`: each call waits for the session user's decision; `never`: it runs without asking.",
            },
          },
        },
      },
    },
  },
  summary:
    'The skills the operator\'s policy lets the caller enable (`POST /v1/sessions {"enable": [...]}`); asking for another is a 403.',
} as const;
