import { EntrypointError } from './errors.js';
import type { Entrypoint, SchemeContext } from './types.js';

/**
 * The targets of the `builtin:` scheme: tools that the agent itself provides (`@birdie/graph`), because they need
 * what no child process may touch — the user's long-term memory store. A skill switches one on by naming it
 * (`entrypoint: builtin:remember`); the agent runs it in-process. This list is the one source of the names: the
 * registry's load-time check and `skills check` refuse any other target, and the graph implements exactly these.
 */
export const BUILTIN_ENTRYPOINTS: readonly string[] = Object.freeze([
  'cancel_task',
  'forget',
  'list_tasks',
  'recall',
  'remember',
  'schedule_task',
]);

/**
 * `builtin:<name>`: resolves (so a skill that declares it loads and checks clean), but never runs here. Whoever runs
 * a tool outside an agent (`birdie tool`) gets a `builtin-only` error that says where it runs instead.
 */
export function builtinScheme(target: string, context: SchemeContext): Entrypoint {
  if (!BUILTIN_ENTRYPOINTS.includes(target)) {
    throw new EntrypointError(
      'unknown-builtin',
      `${context.entrypoint}: there is no builtin tool '${target}' (builtin tools: ${BUILTIN_ENTRYPOINTS.join(', ')})`,
      { offset: 0 },
    );
  }
  return {
    scheme: 'builtin',
    raw: false,
    placeholders: [],
    async run() {
      throw new EntrypointError(
        'builtin-only',
        `${context.entrypoint} is provided by the agent itself (it needs the user's store: long-term memory or scheduled tasks), so it runs only inside a session, not on its own`,
      );
    },
  };
}
