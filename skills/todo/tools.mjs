// The todo skill's tools, called by birdie's `node:` entrypoint as `(args, context)`. The plan is stored per session;
// lib/plan-file.mjs finds the session in `context.env`, falling back to the process environment.
import { planFileFor, readPlan, serialised, TodoError, writePlan } from './lib/plan-file.mjs';
import { renderPlan } from './lib/render.mjs';

const MAX_STEPS = 50;
const MAX_STEP_CHARS = 500;

/** @typedef {{ signal?: AbortSignal; env?: Record<string, string> }} ToolContext */

/** @param {{ steps: string[] }} args @param {ToolContext} [context] */
export async function create_plan(args, context) {
  const steps = validSteps(args.steps);
  const file = planFileFor(context);
  return serialised(file, async () => {
    const previous = await readPlan(file);
    const now = new Date().toISOString();
    /** @type {import('./lib/plan-file.mjs').Plan} */
    const plan = {
      version: 1,
      steps: steps.map((text) => ({ text, done: false })),
      createdAt: now,
      updatedAt: now,
    };
    await writePlan(file, plan);
    const replaced = previous
      ? `Replaced the previous plan (${previous.steps.filter((step) => step.done).length} of ${previous.steps.length} steps were done).\n`
      : '';
    return `${replaced}${renderPlan(plan)}`;
  });
}

/** @param {{ step_number: number; summary?: string }} args @param {ToolContext} [context] */
export async function complete_step(args, context) {
  const file = planFileFor(context);
  return serialised(file, async () => {
    const plan = await readPlan(file);
    if (!plan)
      throw new TodoError('no-plan', 'There is no plan in this session yet; call todo_create_plan first.');
    const number = args.step_number;
    if (!Number.isInteger(number) || number < 1 || number > plan.steps.length) {
      throw new TodoError(
        'bad-step',
        `Step ${JSON.stringify(number)} does not exist: the plan has steps 1 to ${plan.steps.length}.`,
      );
    }
    const step = /** @type {import('./lib/plan-file.mjs').Step} */ (plan.steps[number - 1]);
    const again = step.done;
    step.done = true;
    const summary = typeof args.summary === 'string' ? args.summary.trim() : '';
    if (summary) step.summary = summary.slice(0, MAX_STEP_CHARS);
    plan.updatedAt = new Date().toISOString();
    await writePlan(file, plan);
    return `${again ? `Step ${number} was already done; its summary is updated.\n` : ''}${renderPlan(plan)}`;
  });
}

/** @param {Record<string, never>} _args @param {ToolContext} [context] */
export async function show_plan(_args, context) {
  const file = planFileFor(context);
  const plan = await readPlan(file);
  return plan ? renderPlan(plan) : 'There is no plan in this session yet.';
}

/** @param {unknown} steps @returns {string[]} */
function validSteps(steps) {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new TodoError('bad-steps', 'steps must be a non-empty list of short step descriptions.');
  }
  if (steps.length > MAX_STEPS) {
    throw new TodoError(
      'bad-steps',
      `A plan has at most ${MAX_STEPS} steps; group related work into one step.`,
    );
  }
  return steps.map((step, index) => {
    const text = typeof step === 'string' ? step.replace(/\s+/g, ' ').trim() : '';
    if (!text)
      throw new TodoError('bad-steps', `Step ${index + 1} is empty; each step must be a short sentence.`);
    return text.slice(0, MAX_STEP_CHARS);
  });
}
