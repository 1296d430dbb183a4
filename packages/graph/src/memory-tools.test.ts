import { readFileSync } from 'node:fs';
import { BUILTIN_ENTRYPOINTS } from '@birdie/entrypoints';
import { parseSkill } from '@birdie/skill-parser';
import { describe, expect, it } from 'vitest';
import { MEMORY_BUILTINS } from './memory-tools.js';
import { TASK_BUILTINS } from './task-tools.js';
import type { NewTaskRequest, TaskBook, TaskRecord } from './types.js';

const bundled = new URL('../../../skills/memory/SKILL.md', import.meta.url);
const bundledScheduler = new URL('../../../skills/scheduler/SKILL.md', import.meta.url);

describe('builtin tools', () => {
  it('implement exactly the names @birdie/entrypoints lets a skill switch on', () => {
    expect([...Object.keys(MEMORY_BUILTINS), ...Object.keys(TASK_BUILTINS)].sort()).toEqual(
      [...BUILTIN_ENTRYPOINTS].sort(),
    );
  });

  it('accept what the bundled memory skill documents (its schemas are the builtins’ own)', () => {
    const { skill } = parseSkill(readFileSync(bundled, 'utf8'), { path: bundled.pathname });
    expect(skill?.enabledByDefault).toBe(false);
    for (const tool of skill?.tools ?? []) {
      expect(tool.entrypoint).toBe(`builtin:${tool.name}`);
      expect(tool.schema).toEqual(MEMORY_BUILTINS[tool.name]?.parameters);
    }
    expect(skill?.tools.map((t) => t.name)).toEqual(['remember', 'recall', 'forget']);
  });
});

describe('task builtins', () => {
  it('accept what the bundled scheduler skill documents; the skill is off by default', () => {
    const { skill } = parseSkill(readFileSync(bundledScheduler, 'utf8'), { path: bundledScheduler.pathname });
    expect(skill?.enabledByDefault).toBe(false);
    for (const tool of skill?.tools ?? []) {
      expect(tool.entrypoint).toBe(`builtin:${tool.name}`);
      expect(tool.schema).toEqual(TASK_BUILTINS[tool.name]?.parameters);
    }
    expect(skill?.tools.map((t) => t.name)).toEqual(['schedule_task', 'list_tasks', 'cancel_task']);
  });

  it('schedule, list and cancel through the task book the turn was given', async () => {
    const made: NewTaskRequest[] = [];
    const tasks: TaskRecord[] = [];
    const book: TaskBook = {
      list: () => tasks,
      create: (request) => {
        if (!request.every && !request.schedule && !request.at)
          throw new Error('give one of schedule, every, at');
        made.push(request);
        const task = { id: String(tasks.length + 1), when: `every ${request.every}`, prompt: request.prompt };
        tasks.push(task);
        return task;
      },
      cancel: (id) => tasks.some((t) => t.id === id),
    };
    const run = (name: string, args: Record<string, unknown>) => TASK_BUILTINS[name]!.execute(args, book);
    expect(await run('list_tasks', {})).toBe('No tasks are scheduled.');
    expect(await run('schedule_task', { prompt: ' Water the plants ', every: '1d', at: ' ' })).toMatch(
      /^Scheduled task \[1\]: every 1d\./,
    );
    expect(made).toEqual([{ prompt: 'Water the plants', every: '1d' }]);
    await expect(run('schedule_task', { prompt: 'x' })).rejects.toThrow('give one of schedule, every, at');
    await expect(run('schedule_task', { prompt: '  ' })).rejects.toThrow('prompt is empty');
    expect(await run('list_tasks', {})).toBe('- [1] every 1d: Water the plants');
    expect(await run('cancel_task', { id: '1' })).toBe('Cancelled task [1].');
    await expect(run('cancel_task', { id: '9' })).rejects.toThrow('No scheduled task has the id "9".');
    expect(TASK_BUILTINS.schedule_task!.writes && TASK_BUILTINS.cancel_task!.writes).toBe(true);
    expect(TASK_BUILTINS.list_tasks!.writes).toBe(false);
  });
});
