import type { PlanEntry } from '@agentclientprotocol/sdk';

/** The todo skill's tools whose output is the whole plan. */
export const PLAN_TOOLS = new Set(['todo_create_plan', 'todo_complete_step', 'todo_show_plan']);

const STEP = /^\[( |x)\] (\d+)\. (.*)$/;

/**
 * The plan in a todo tool's output (`[x] 1. Read package.json — found it` per step, as the skill renders it) as
 * ACP plan entries: done steps `completed`, the first open one `in_progress`, the rest `pending`. Undefined when the
 * output holds no plan (an error, "There is no plan in this session yet"). `known`: the steps' texts as last seen (an
 * open step's line is its text alone): a done step whose text itself holds " — " keeps it whole; without them, the
 * text ends at the first " — ".
 */
export function planFromTodoOutput(output: string, known: readonly string[] = []): PlanEntry[] | undefined {
  const steps = output
    .split('\n')
    .map((line) => STEP.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m, index) => ({
      done: m[1] === 'x',
      text: m[1] === 'x' ? doneText(m[3] ?? '', known[index]) : (m[3] ?? ''),
    }));
  if (steps.length === 0) return undefined;
  const next = steps.findIndex((s) => !s.done);
  return steps.map((step, index) => ({
    content: step.text,
    priority: 'medium',
    status: step.done ? 'completed' : index === next ? 'in_progress' : 'pending',
  }));
}

/** A done step's text: its line ends with " — " and the summary when one was given. */
function doneText(line: string, known: string | undefined): string {
  if (known !== undefined && (line === known || line.startsWith(`${known} — `))) return known;
  return line.split(' — ')[0]!;
}
