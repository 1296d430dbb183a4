import { describe, expect, it } from 'vitest';
import { SkillsHolds } from '../src/skills-holds.js';

describe('SkillsHolds', () => {
  it('holds a trigger once, and says so only the first time', () => {
    const holds = new SkillsHolds();
    expect(holds.has('ticker')).toBe(false);
    expect(holds.hold('ticker', holds.reading)).toBe(true);
    expect(holds.has('ticker')).toBe(true);
    expect(holds.hold('ticker', holds.reading)).toBe(false);
  });

  it('keeps held, when the agent files are read again, only what is still refused', () => {
    const holds = new SkillsHolds();
    holds.hold('ticker', holds.reading);
    holds.hold('task-3', holds.reading);
    const asked: string[][] = [];
    holds.reread((held) => {
      asked.push([...held]);
      return new Set(['task-3']);
    });
    expect(asked).toEqual([['ticker', 'task-3']]);
    expect(holds.has('ticker')).toBe(false);
    expect(holds.has('task-3')).toBe(true);
  });

  it('does not hold on a refusal decided before the agent files were read again', () => {
    const holds = new SkillsHolds();
    const started = holds.reading;
    holds.reread(() => new Set());
    expect(holds.hold('ticker', started)).toBe(false);
    expect(holds.has('ticker')).toBe(false);
    expect(holds.hold('ticker', holds.reading)).toBe(true);
  });

  it('asks nothing when nothing is held', () => {
    const holds = new SkillsHolds();
    holds.reread(() => expect.unreachable());
    expect(holds.reading).toBe(1);
  });
});
