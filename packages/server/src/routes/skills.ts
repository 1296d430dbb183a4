import { createRoute, z } from '@hono/zod-openapi';
import { apiErrorOf } from '../store-errors.js';
import {
  BODY_ERRORS,
  COMMON_ERRORS,
  defineRoute,
  errorResponses,
  jsonContent,
  SessionParams,
} from './define.js';
import { AgentSchema, GrantsSchema, SkillSchema } from './schemas.js';
import { sessionOf } from './session-of.js';

export const listSkills = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/skills',
    operationId: 'listSkills',
    summary:
      'The skills the operator\'s policy lets the caller enable (`POST /v1/sessions {"enable": [...]}`); asking for another is a 403.',
    responses: {
      200: { description: 'Skills.', content: jsonContent(z.object({ skills: z.array(SkillSchema) })) },
      ...errorResponses(...COMMON_ERRORS),
    },
  }),
  ({ runtime }) =>
    async (c) =>
      c.json({ skills: await runtime.skills(c.get('token').userId) }, 200),
);

const SkillNames = z.array(z.string().min(1).max(256)).max(256).default([]);

export const setSessionSkills = defineRoute(
  createRoute({
    method: 'put',
    path: '/v1/sessions/{id}/skills',
    operationId: 'setSessionSkills',
    summary:
      "Switch skills on (`enable`) and off (`disable`) in the session, from its next turn; answers the session's grants. Only skills `GET /v1/skills` lists can be switched on (another: 403 `skill-not-allowed`, and nothing changes); any skill can be switched off. Not while a turn runs on the session (409).",
    request: {
      params: SessionParams,
      body: {
        required: true,
        content: jsonContent(
          z
            .strictObject({ enable: SkillNames, disable: SkillNames })
            .refine((b) => !b.enable.some((name) => b.disable.includes(name)), {
              message: 'a skill cannot be in both enable and disable',
            }),
        ),
      },
    },
    responses: {
      200: { description: "The session's grants.", content: jsonContent(GrantsSchema) },
      ...errorResponses(...BODY_ERRORS, 'skill-not-allowed', 'not-found', 'session-busy', ...COMMON_ERRORS),
    },
  }),
  ({ runtime, store }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      const { enable, disable } = c.req.valid('json');
      try {
        // The lease, like a turn: grants do not change under a running turn (which read them when it started).
        const lease = await store.leases.acquire(session.id, { waitMs: 0 });
        try {
          return c.json(await runtime.setSkills(session, { enable, disable }), 200);
        } finally {
          await lease.release();
        }
      } catch (error) {
        throw apiErrorOf(error, session.id) ?? error;
      }
    },
);

export const listAgents = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary:
      'The agents the operator\'s policy lets the caller start a session with (`POST /v1/sessions {"agent": ...}`); asking for another is a 403.',
    responses: {
      200: { description: 'Agents.', content: jsonContent(z.object({ agents: z.array(AgentSchema) })) },
      ...errorResponses(...COMMON_ERRORS),
    },
  }),
  ({ runtime }) =>
    async (c) =>
      c.json({ agents: await runtime.agents(c.get('token').userId) }, 200),
);
