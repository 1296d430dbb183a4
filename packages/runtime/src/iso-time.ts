/**
 * Strict ISO 8601 times. `new Date('2027-02-31T09:00:00Z')` rolls over to 3 March; a time a person or a model wrote
 * must mean what it says, so each field is checked against the calendar before the text becomes a `Date`.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):(\d{2}))?)?$/;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export type IsoTime = { ok: true; date: Date } | { ok: false; problem: string };

export interface IsoTimeRules {
  /** Whether the text must carry a time and an offset (`Z`, `+01:00`): a task's `at`, not a `--since` date. */
  zoned?: boolean;
}

/**
 * Reads `text` as an ISO 8601 date or date-time. Without `zoned`, a date alone is midnight UTC and a time without an
 * offset is local (as `Date` reads them). `problem` says which field is wrong (`February 2027 has no day 31`).
 */
export function parseIsoTime(text: string, rules: IsoTimeRules = {}): IsoTime {
  const m = ISO.exec(text.trim());
  if (!m || (rules.zoned && m[7] === undefined)) return { ok: false, problem: 'not ISO 8601' };
  const [year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = [
    m[1],
    m[2],
    m[3],
    m[4],
    m[5],
    m[6],
    m[7],
    m[8],
    m[9],
  ].map((f) => (f === undefined ? 0 : Number(f))) as number[];
  if (month! < 1 || month! > 12) return { ok: false, problem: `month ${month}` };
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (day! < 1 || day! > days)
    return { ok: false, problem: `${MONTHS[month! - 1]} ${year} has no day ${day}` };
  if (hour! > 23) return { ok: false, problem: `hour ${hour}` };
  if (minute! > 59) return { ok: false, problem: `minute ${minute}` };
  if (second! > 59) return { ok: false, problem: `second ${second}` };
  if (offsetHours! > 23 || offsetMinutes! > 59) return { ok: false, problem: `offset ${m[7]}` };
  const date = new Date(text.trim());
  return Number.isNaN(date.getTime()) ? { ok: false, problem: 'not ISO 8601' } : { ok: true, date };
}

/** How long ago `ms` milliseconds is, roughly: `3 days`, `5 hours`, `12 minutes`, `40 seconds`. */
export function roughDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ];
  for (const [unit, size] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'}`;
  }
  return `${Math.max(0, Math.round(ms))} ms`;
}
