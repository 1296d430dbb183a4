import type { ScheduledTask } from '@birdie/store';
import { isStoreError } from '@birdie/store/errors';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import { apiErrorOf } from '../store-errors.js';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { TaskSchema } from './schemas.js';

/** A task as the API shows it (the user is the caller). */
function taskJson(t: ScheduledTask) {
  return {
    id: t.id,
    ...(t.agent !== undefined ? { agent: t.agent } : {}),
    prompt: t.prompt,
    ...(t.schedule !== undefined ? { schedule: t.schedule } : {}),
    ...(t.timezone !== undefined ? { timezone: t.timezone } : {}),
    ...(t.every !== undefined ? { every: t.every } : {}),
    ...(t.at !== undefined ? { at: t.at.toISOString() } : {}),
    status: t.status,
    createdAt: t.createdAt.toISOString(),
    ...(t.createdByRun !== undefined ? { createdByRun: t.createdByRun } : {}),
    ...(t.endedAt !== undefined ? { endedAt: t.endedAt.toISOString() } : {}),
    ...(t.error !== undefined ? { error: t.error } : {}),
  };
}

export const listTasks = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/tasks',
    operationId: 'listTasks',
    summary: "The caller's scheduled tasks, oldest first: the active ones, or every one with `all=true`.",
    request: {
      query: z.object({
        all: z
          .enum(['true', 'false'])
          .optional()
          .openapi({ description: '`true`: also the tasks that are done, failed or were cancelled.' }),
      }),
    },
    responses: {
      200: { description: 'Tasks.', content: jsonContent(z.object({ tasks: z.array(TaskSchema) })) },
      ...errorResponses('invalid-request', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const all = c.req.valid('query').all === 'true';
      try {
        const tasks = await store.tasks.list(c.get('token').userId, { all });
        return c.json({ tasks: tasks.map(taskJson) }, 200);
      } catch (error) {
        throw apiErrorOf(error) ?? error;
      }
    },
);

/** A task id in the path. Not validated here: a malformed id is 404 like a missing one. */
const TaskParams = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, pattern: '^[1-9]\\d{0,15}$', description: 'Task id.' }),
});

export const cancelTask = defineRoute(
  createRoute({
    method: 'delete',
    path: '/v1/tasks/{id}',
    operationId: 'cancelTask',
    summary:
      "Cancel an active task of the caller: it does not run again (kept in the list with `all=true`, status `cancelled`). Another user's, a missing one or one no longer active is 404.",
    request: { params: TaskParams },
    responses: {
      204: { description: 'Cancelled.' },
      ...errorResponses('not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const raw = c.req.valid('param').id;
      const missing = () => new ApiError('not-found', `no active task ${raw}`);
      if (!/^[1-9]\d{0,15}$/.test(raw)) throw missing();
      let cancelled: boolean;
      try {
        cancelled = await store.tasks.cancel(Number(raw), c.get('token').userId);
      } catch (error) {
        if (isStoreError(error, 'not-owner', 'not-found', 'invalid-id')) throw missing();
        throw apiErrorOf(error) ?? error;
      }
      if (!cancelled) throw missing();
      return c.body(null, 204);
    },
);
