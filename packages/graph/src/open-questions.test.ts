import { describe, expect, it } from 'vitest';
import { OpenQuestions } from './open-questions.js';

describe('OpenQuestions', () => {
  it('gives a thread its open calls once', () => {
    const questions = new OpenQuestions();
    questions.remember('t1', new Set(['a', 'b']));
    expect([...(questions.take('t1') ?? [])]).toEqual(['a', 'b']);
    expect(questions.take('t1')).toBeUndefined();
    expect(questions.take('never-asked')).toBeUndefined();
  });

  it('forgets the thread asked longest ago past its bound, and counts a thread asked again as the newest', () => {
    const questions = new OpenQuestions(2);
    questions.remember('t1', new Set(['a']));
    questions.remember('t2', new Set(['b']));
    questions.remember('t1', new Set(['c']));
    questions.remember('t3', new Set(['d']));
    expect(questions.size).toBe(2);
    expect(questions.take('t2')).toBeUndefined();
    expect([...(questions.take('t1') ?? [])]).toEqual(['c']);
    expect([...(questions.take('t3') ?? [])]).toEqual(['d']);
  });

  it('holds 1,000 threads by default', () => {
    const questions = new OpenQuestions();
    for (let i = 0; i <= 1000; i++) questions.remember(`t${i}`, new Set([`c${i}`]));
    expect(questions.size).toBe(1000);
    expect(questions.take('t0')).toBeUndefined();
    expect([...(questions.take('t1') ?? [])]).toEqual(['c1']);
    expect([...(questions.take('t1000') ?? [])]).toEqual(['c1000']);
  });
});
