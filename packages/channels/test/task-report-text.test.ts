import type { RunRecord } from '@birdie/store';
import { diedMessage } from '@birdie/store/backend';
import { describe, expect, it } from 'vitest';
import { reportText } from '../src/task-reports.js';

// A chat is its users': a scheduled task's run that died is reported there without the process and the machine that
// ran it (reported: "⚠️ it ended died: process 4242 on build-7 stopped without finishing it").
describe("a scheduled task's report in a chat", () => {
  const run = (fields: Partial<RunRecord>): RunRecord =>
    ({
      id: 1,
      trigger: 'every day',
      status: 'ok',
      toolCalls: [],
      usage: [],
      notices: [],
      ...fields,
    }) as RunRecord;

  it('says a run died without its process or machine', () => {
    const text = reportText(run({ status: 'died', error: diedMessage({ host: 'build-7', pid: 4242 }) }));
    expect(text).toContain('⚠️ it died: the process running it stopped without finishing it');
    expect(text).not.toMatch(/4242|build-7/);
  });

  it('keeps a died run that names no process in its own words', () => {
    const unrecorded =
      'died: the turn ended while the database server could not be reached, so its end was not recorded';
    expect(reportText(run({ status: 'died', error: unrecorded }))).toContain(`⚠️ it ${unrecorded}`);
  });

  it('keeps an error and an answer in their own words', () => {
    expect(reportText(run({ status: 'error', error: 'the model said no' }))).toContain(
      'it ended error: the model said no',
    );
    expect(reportText(run({ answer: 'done' }))).toBe('⏰ **every day**\n\ndone');
  });
});
