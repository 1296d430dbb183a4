import { createRoute, z } from '@hono/zod-openapi';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { SkillSchema } from './schemas.js';

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
