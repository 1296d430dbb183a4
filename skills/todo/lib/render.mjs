/** @typedef {import('./plan-file.mjs').Plan} Plan */

/** The plan as the model (and the user watching the tool results) sees it. @param {Plan} plan */
export function renderPlan(plan) {
  const done = plan.steps.filter((step) => step.done).length;
  const lines = [`Plan: ${done} of ${plan.steps.length} steps done`];
  plan.steps.forEach((step, index) => {
    const summary = step.done && step.summary ? ` — ${step.summary}` : '';
    lines.push(`[${step.done ? 'x' : ' '}] ${index + 1}. ${step.text}${summary}`);
  });
  const next = plan.steps.findIndex((step) => !step.done);
  lines.push(
    next === -1
      ? 'All steps are done: give the final answer now.'
      : `Next: step ${next + 1} — ${plan.steps[next]?.text}`,
  );
  return lines.join('\n');
}
