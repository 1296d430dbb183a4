import { expect, it } from 'vitest';
import * as api from '../src/index.js';

it('exports exactly its public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'Scheduler',
    'SchedulerError',
    'dueTimes',
    'formatSeconds',
    'isSchedulerError',
    'missedSince',
    'promptOf',
    'systemClock',
    'timingLabel',
    'watchFiles',
  ]);
});
