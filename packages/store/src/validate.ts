// Argument checks every back end applies the same way, before any query: one wording per mistake.
import { isAbsolute } from 'node:path';
import { checkCount, checkKey, checkObject, checkOptions, checkText } from './checks.js';
import { StoreError } from './errors.js';
import { validateSessionId, validateUserId } from './ids.js';
import type {
  AcquireOptions,
  FinishedStatus,
  Grants,
  ModelUsage,
  NewTask,
  RunFinish,
  RunNotice,
  RunProgress,
  RunStart,
  RunStatus,
  TrustDecision,
} from './interface.js';
import { redactSecrets } from './secrets.js';
import { titleProblem } from './title.js';

export function checkTitle(title: unknown): string {
  const problem = titleProblem(title);
  if (problem !== undefined) throw new StoreError('invalid-argument', problem);
  return title as string;
}

const MAX_NAME = 200;
const MAX_SOURCE = 4096;

/** Grants as stored: de-duplicated, sorted lists; sources as given (checked). */
export function checkGrants(grants: Grants): {
  enabled: string[];
  disabled: string[];
  sources?: Record<string, string>;
} {
  const enabled = names(grants?.enabled, 'enabled');
  const disabled = names(grants?.disabled, 'disabled');
  return grants.sources === undefined
    ? { enabled, disabled }
    : { enabled, disabled, sources: sources(grants.sources) };
}

/** Grants read back from their three JSON columns; throws a plain error when they do not decode. */
export function decodeGrants(enabled: string, disabled: string, stored: string | null): Grants {
  const grants: Grants = {
    enabled: names(JSON.parse(enabled), 'enabled'),
    disabled: names(JSON.parse(disabled), 'disabled'),
  };
  if (stored !== null) grants.sources = sources(JSON.parse(stored));
  return grants;
}

/** `corrupt-record` for a session's grants that do not decode. */
export function grantsDamage(sessionId: string, location: string, cause: unknown, file?: string): StoreError {
  return new StoreError(
    'corrupt-record',
    `the grants of session ${sessionId} in ${location} do not decode (${(cause as Error).message})`,
    {
      cause,
      ...(file === undefined ? {} : { file }),
      damage: { sessionId, ns: '', table: 'grants', reason: (cause as Error).message },
      hint: 'set the grants again (enable the skills anew) to replace the record',
    },
  );
}

function names(list: unknown, field: string): string[] {
  if (
    !Array.isArray(list) ||
    !list.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME)
  ) {
    throw new StoreError('invalid-argument', `grants.${field} must be an array of non-empty strings`);
  }
  return [...new Set(list as string[])].sort();
}

/** A plain copy with own, string-valued entries only. */
function sources(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StoreError('invalid-argument', 'grants.sources must be an object of skill name → string');
  }
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(value)) {
    if (
      name.length === 0 ||
      name.length > MAX_NAME ||
      typeof source !== 'string' ||
      source.length > MAX_SOURCE
    ) {
      throw new StoreError(
        'invalid-argument',
        `grants.sources must map skill names to strings of at most ${MAX_SOURCE} characters`,
      );
    }
    Object.defineProperty(out, name, { value: source, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const MAX_CONTENT = 16 * 1024;

export function checkMemoryContent(content: unknown): string {
  if (typeof content !== 'string' || content.trim() === '' || content.length > MAX_CONTENT) {
    throw new StoreError(
      'invalid-argument',
      `memory content must be non-empty text of at most ${MAX_CONTENT} characters`,
    );
  }
  return content;
}

const STATUSES = new Set<FinishedStatus>(['ok', 'error', 'interrupted', 'rejected', 'cancelled']);
export const RUN_STATUSES: readonly RunStatus[] = [
  'running',
  'ok',
  'error',
  'interrupted',
  'rejected',
  'cancelled',
  'died',
];
/** The longest answer the log keeps (the whole message stays in the checkpoint). */
export const MAX_ANSWER = 16_000;

/** A run's end as stored: status checked, counts non-negative, the error redacted, usage as JSON. */
export function checkRunFinish(r: RunFinish): {
  status: FinishedStatus;
  input: number;
  output: number;
  error: string | null;
  usage: string | null;
  answer: string | null;
  endCheckpoint: string | null;
  model: string | null;
  /** The session's totals to add (`sessionTurn`), or null. */
  turn: { input: number; output: number } | null;
  notices: string | null;
} {
  checkObject(r, 'run');
  if (!STATUSES.has(r.status)) {
    throw new StoreError('invalid-argument', `run status must be one of ${[...STATUSES].join(', ')}`);
  }
  return {
    status: r.status,
    input: checkCount(r.inputTokens ?? 0, 'inputTokens'),
    output: checkCount(r.outputTokens ?? 0, 'outputTokens'),
    error: r.error === undefined ? null : redactSecrets(checkText(r.error, 'error')),
    usage: r.usage === undefined || r.usage.length === 0 ? null : JSON.stringify(checkUsage(r.usage)),
    answer:
      r.answer === undefined || r.answer === ''
        ? null
        : redactSecrets(checkText(r.answer, 'answer', MAX_ANSWER)),
    endCheckpoint: r.endCheckpointId === undefined ? null : checkKey(r.endCheckpointId, 'endCheckpointId'),
    model: r.model === undefined ? null : checkText(r.model, 'model'),
    turn:
      r.sessionTurn === undefined
        ? null
        : {
            input: checkCount(r.sessionTurn?.inputTokens, 'sessionTurn.inputTokens'),
            output: checkCount(r.sessionTurn?.outputTokens, 'sessionTurn.outputTokens'),
          },
    notices: encodeNotices(r.notices),
  };
}

/** A running run's tokens so far as stored: counts non-negative, usage as JSON. */
export function checkRunProgress(r: RunProgress): {
  input: number;
  output: number;
  usage: string | null;
  model: string | null;
} {
  checkObject(r, 'progress');
  return {
    input: checkCount(r.inputTokens ?? 0, 'inputTokens'),
    output: checkCount(r.outputTokens ?? 0, 'outputTokens'),
    usage: r.usage === undefined || r.usage.length === 0 ? null : JSON.stringify(checkUsage(r.usage)),
    model: r.model === undefined ? null : checkText(r.model, 'model'),
  };
}

/** Tokens per model, merged by model name, in the order given. */
export function checkUsage(usage: unknown): ModelUsage[] {
  if (!Array.isArray(usage)) throw new StoreError('invalid-argument', 'usage must be an array');
  const byModel = new Map<string, ModelUsage>();
  for (const u of usage as ModelUsage[]) {
    const model = checkText(u?.model, 'usage.model', 200);
    const entry = byModel.get(model) ?? { model, inputTokens: 0, outputTokens: 0 };
    entry.inputTokens += checkCount(u.inputTokens, 'usage.inputTokens');
    entry.outputTokens += checkCount(u.outputTokens, 'usage.outputTokens');
    byModel.set(model, entry);
  }
  return [...byModel.values()];
}

/** Stored usage JSON read back; anything unreadable reads as none (the totals stay). */
export function decodeUsage(text: string | null): ModelUsage[] {
  if (text === null) return [];
  try {
    return checkUsage(JSON.parse(text));
  } catch {
    return [];
  }
}

/** The optional parts of a run's start, checked. */
export function checkRunStart(r: RunStart): {
  model: string | null;
  agent: { name: string; digest: string } | undefined;
  parent: number | null;
  trigger: string | null;
  thread: string;
  startCheckpoint: string | null;
} {
  checkObject(r, 'run');
  if (r.parentRunId !== undefined && !Number.isSafeInteger(r.parentRunId))
    throw new StoreError('invalid-argument', 'parentRunId must be a run id');
  return {
    model: r.model === undefined ? null : checkText(r.model, 'model'),
    agent: checkRunAgent(r.agent),
    parent: r.parentRunId ?? null,
    trigger: r.trigger === undefined ? null : checkText(r.trigger, 'trigger', 500),
    thread: r.threadId === undefined ? r.sessionId : checkKey(r.threadId, 'threadId'),
    startCheckpoint:
      r.startCheckpointId === undefined ? null : checkKey(r.startCheckpointId, 'startCheckpointId'),
  };
}

export function checkRunStatus(status: unknown): RunStatus {
  if (!RUN_STATUSES.includes(status as RunStatus))
    throw new StoreError('invalid-argument', `run status must be one of ${RUN_STATUSES.join(', ')}`);
  return status as RunStatus;
}

const MAX_PROMPT = 16_000;

/** A new task as stored: one of schedule / every / at, the rest checked. */
export function checkTask(t: NewTask): {
  userId: string;
  prompt: string;
  agent: string | null;
  schedule: string | null;
  timezone: string | null;
  every: number | null;
  at: number | null;
  createdByRun: number | null;
  originSession: string | null;
  /** The grants as JSON text, or null. */
  grants: string | null;
} {
  const userId = validateUserId(checkObject(t, 'task').userId);
  if (typeof t.prompt !== 'string' || t.prompt.trim() === '' || t.prompt.length > MAX_PROMPT)
    throw new StoreError(
      'invalid-argument',
      `a task's prompt is non-empty text of at most ${MAX_PROMPT} characters`,
    );
  const given = [t.schedule, t.every, t.at].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new StoreError('invalid-argument', 'a task has exactly one of schedule, every and at');
  if (t.every !== undefined && (!Number.isFinite(t.every) || t.every < 1))
    throw new StoreError('invalid-argument', "a task's every is a number of seconds, at least 1");
  if (t.at !== undefined && (!(t.at instanceof Date) || Number.isNaN(t.at.getTime())))
    throw new StoreError('invalid-argument', "a task's at is a valid Date");
  if (t.timezone !== undefined && t.schedule === undefined)
    throw new StoreError('invalid-argument', "a task's timezone goes with a schedule");
  if (t.createdByRun !== undefined && !Number.isSafeInteger(t.createdByRun))
    throw new StoreError('invalid-argument', 'createdByRun must be a run id');
  return {
    userId,
    prompt: t.prompt,
    agent: t.agent === undefined ? null : checkKey(t.agent, 'agent', 200),
    schedule: t.schedule === undefined ? null : checkKey(t.schedule, 'schedule', 200),
    timezone: t.timezone === undefined ? null : checkKey(t.timezone, 'timezone', 100),
    every: t.every ?? null,
    at: t.at === undefined ? null : t.at.getTime(),
    createdByRun: t.createdByRun ?? null,
    originSession: t.originSession === undefined ? null : validateSessionId(t.originSession),
    grants: t.grants === undefined ? null : taskGrantsText(t.grants),
  };
}

/** A task's grants as the stores keep them (JSON text): two lists of names and the sources, checked. */
function taskGrantsText(grants: NonNullable<NewTask['grants']>): string {
  const names = (list: unknown) =>
    Array.isArray(list) && list.every((name) => typeof name === 'string' && name.length <= 256);
  const sources = grants.sources ?? {};
  if (
    !names(grants.enabled) ||
    !names(grants.disabled) ||
    typeof sources !== 'object' ||
    !Object.values(sources).every((v) => typeof v === 'string')
  )
    throw new StoreError('invalid-argument', "a task's grants are lists of skill names (and their sources)");
  return JSON.stringify({ enabled: grants.enabled, disabled: grants.disabled, sources });
}

export function checkStartedCall(call: { id: string; name: string; skill?: string }): {
  id: string;
  name: string;
  skill: string | null;
} {
  return {
    id: checkKey(call?.id, 'call.id'),
    name: checkText(call.name, 'call.name', 200),
    skill: call.skill === undefined ? null : checkText(call.skill, 'call.skill', 200),
  };
}

export function checkFinishedCall(call: {
  id: string;
  ok: boolean;
  durationMs: number;
  truncated: boolean;
  error?: string;
}): { id: string; status: 'ok' | 'error'; duration: number; truncated: boolean; error: string | null } {
  return {
    id: checkKey(call?.id, 'call.id'),
    status: call.ok ? 'ok' : 'error',
    duration: checkCount(Math.round(call.durationMs), 'call.durationMs'),
    truncated: call.truncated === true,
    error: call.error === undefined ? null : redactSecrets(checkText(call.error, 'call.error')),
  };
}

export function checkCallIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string')) {
    throw new StoreError('invalid-argument', 'startedAmong takes an array of call ids');
  }
  return ids as string[];
}

const DECISIONS = new Set<TrustDecision>(['trusted', 'refused']);

/** An absolute path without NUL; the caller passes a realpath, so the same folder is one key. */
export function checkDir(dir: unknown): string {
  if (typeof dir !== 'string' || dir.includes('\0') || !isAbsolute(dir) || dir.length > 4096) {
    throw new StoreError('invalid-argument', 'a trusted folder is an absolute path without NUL bytes');
  }
  return dir;
}

export function checkTrust(record: { digest: string; decision: TrustDecision }): {
  digest: string;
  decision: TrustDecision;
} {
  const digest = checkKey(record?.digest, 'digest', 512);
  if (!DECISIONS.has(record.decision)) {
    throw new StoreError('invalid-argument', "decision must be 'trusted' or 'refused'");
  }
  return { digest, decision: record.decision };
}

export const DEFAULT_TTL_MS = 30_000;
const MIN_TTL_MS = 200;
const MAX_WAIT_MS = 24 * 3600_000;

export function checkAcquire(options: AcquireOptions | undefined): { waitMs: number; ttlMs: number } {
  const opts = checkOptions(options);
  const waitMs = opts.waitMs ?? 0;
  const ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
  if (!Number.isFinite(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS) {
    throw new StoreError('invalid-argument', `waitMs must be between 0 and ${MAX_WAIT_MS}`);
  }
  if (!Number.isFinite(ttlMs) || ttlMs < MIN_TTL_MS || ttlMs > MAX_WAIT_MS) {
    throw new StoreError('invalid-argument', `ttlMs must be between ${MIN_TTL_MS} and ${MAX_WAIT_MS}`);
  }
  return { waitMs, ttlMs };
}

/** A run's agent: a name and a hex SHA-256 digest, or nothing. */
export function checkRunAgent(agent: unknown): { name: string; digest: string } | undefined {
  if (agent === undefined) return undefined;
  const a = agent as { name?: unknown; digest?: unknown } | null;
  if (!a || typeof a.name !== 'string' || typeof a.digest !== 'string' || !/^[0-9a-f]{64}$/.test(a.digest))
    throw new StoreError('invalid-argument', "a run's agent is { name, digest } with a SHA-256 hex digest");
  return { name: checkText(a.name, 'agent.name', 200), digest: a.digest };
}

/** Notices kept per run: a chatty server (a log line every second) cannot grow one run's row without bound. */
export const MAX_RUN_NOTICES = 200;
const MAX_NOTICE_TEXT = 2000;

/** A run's notices as stored (JSON, `at` in ms; the newest `MAX_RUN_NOTICES`, each text capped and redacted). */
function encodeNotices(notices: RunFinish['notices']): string | null {
  if (notices === undefined || notices.length === 0) return null;
  if (!Array.isArray(notices)) throw new StoreError('invalid-argument', 'notices must be an array');
  const kept = notices.slice(-MAX_RUN_NOTICES).map((n) => {
    const at = n?.at instanceof Date ? n.at.getTime() : Number.NaN;
    if (!Number.isFinite(at)) throw new StoreError('invalid-argument', 'a notice needs its time (at)');
    const text = String(n.text ?? '');
    return {
      at,
      server: checkText(String(n.server ?? ''), 'notice server'),
      level: checkText(String(n.level ?? 'info'), 'notice level'),
      kind: checkText(String(n.kind ?? 'log'), 'notice kind'),
      text: redactSecrets(text.length > MAX_NOTICE_TEXT ? `${text.slice(0, MAX_NOTICE_TEXT)}…` : text),
    };
  });
  return JSON.stringify(kept);
}

/** The stored notices of a run; a damaged value reads as none (the run itself stays readable). */
export function decodeNotices(raw: string | null | undefined): RunNotice[] {
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as Array<Omit<RunNotice, 'at'> & { at: number }>;
    return Array.isArray(parsed) ? parsed.map((n) => ({ ...n, at: new Date(n.at) })) : [];
  } catch {
    return [];
  }
}
