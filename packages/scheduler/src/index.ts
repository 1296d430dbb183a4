export { type Clock, systemClock } from './clock.js';
export { dueTimes, formatSeconds, missedSince, type Timing, timingLabel } from './due.js';
export { isSchedulerError, SchedulerError, type SchedulerErrorCode } from './errors.js';
export { promptOf, Scheduler, type SchedulerOptions } from './scheduler.js';
export type {
  Firing,
  FiringKind,
  SchedulerEvent,
  SkipReason,
  Trigger,
  TriggerStore,
  UpdateResult,
} from './types.js';
export { type FileWatch, type WatchOptions, watchFiles } from './watch.js';
