import { statSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Session } from '@birdie/store';
import { validateSessionId, validateUserId } from '@birdie/store';
import getFolderSize from 'get-folder-size';
import { ApiError } from './errors.js';

/** Where API sessions' tools work: one folder per user, or per session inside it. */
export interface WorkspaceOptions {
  /**
   * The folder that holds every workspace: `<root>/<userId>` (and `<root>/<userId>/<sessionId>`). Every worker of
   * one store must mount the same folder here, so a session's next turn finds its files on any worker. Absolute.
   */
  root: string;
  /** `user` (default): a user's sessions share one folder; `session`: each session has its own, deleted with it. */
  per?: 'user' | 'session';
  /**
   * A user's workspace may hold this many bytes (everything under `<root>/<userId>`): a turn of a user over it is
   * refused (413, `workspace-bytes-exceeded`) before it starts. Checked between turns: a tool can overshoot within
   * one. Default: no limit.
   */
  maxBytes?: number;
  /** The setting or flag that sets `maxBytes`, named in the refusal. Default `maxBytes`. */
  maxBytesName?: string;
}

/**
 * The workspaces of API sessions under one root (see `WorkspaceOptions`). Folders are made on first use, readable by
 * the server's OS user only (0700). Ids are checked against the store's patterns before they become paths.
 */
export class Workspaces {
  readonly root: string;
  readonly per: 'user' | 'session';
  private readonly maxBytes: number | undefined;
  private readonly maxBytesName: string;
  /** Folders made (and narrowed to 0700) by `open`: later turns only check that they are still there. */
  private readonly made = new Set<string>();

  constructor(options: WorkspaceOptions) {
    if (!isAbsolute(options.root))
      throw new TypeError(`the workspace root must be absolute: ${options.root}`);
    this.root = resolve(options.root);
    this.per = options.per ?? 'user';
    this.maxBytes = options.maxBytes;
    this.maxBytesName = options.maxBytesName ?? 'maxBytes';
  }

  /** `<root>/<userId>`: everything of the user, the unit of the quota. */
  userFolder(userId: string): string {
    return join(this.root, validateUserId(userId));
  }

  /** The session's working folder (its user's, or its own inside it), not made. */
  folderOf(session: Pick<Session, 'id' | 'userId'>): string {
    const user = this.userFolder(session.userId);
    return this.per === 'session' ? join(user, validateSessionId(session.id)) : user;
  }

  /**
   * Makes the session's folder (0700 from the root down) and returns it. A folder this object made before is only
   * checked (one `stat` instead of two `mkdir`s and a `chmod` on every turn); one gone meanwhile is made again. That
   * check is synchronous: a local `stat` takes microseconds, a trip through the thread pool costs more than it.
   */
  async open(session: Pick<Session, 'id' | 'userId'>): Promise<string> {
    const folder = this.folderOf(session);
    if (this.made.has(folder)) {
      if (isFolder(folder)) return folder;
      this.made.delete(folder);
    }
    for (const path of this.per === 'session' ? [this.userFolder(session.userId), folder] : [folder]) {
      try {
        await mkdir(this.root, { recursive: true, mode: 0o700 });
        await mkdir(path, { recursive: true, mode: 0o700 });
        // mkdir's mode passes through the umask; a folder made by an older release or by hand is narrowed too.
        await chmod(path, 0o700);
      } catch (error) {
        throw unusable(session.userId, path, error);
      }
    }
    this.made.add(folder);
    return folder;
  }

  /**
   * The bytes under the user's folder as `lstat` reports them: files, links themselves, and folders (4 KiB each on
   * ext4), a hard-linked file once; 0 before first use.
   */
  async usage(userId: string): Promise<number> {
    return getFolderSize.loose(this.userFolder(userId));
  }

  /**
   * The folder a turn of `session` runs in, made if needed; throws `ApiError('workspace-bytes-exceeded')` (413) when
   * the user's workspace already holds more than the limit.
   */
  async admit(session: Pick<Session, 'id' | 'userId'>): Promise<string> {
    if (this.maxBytes !== undefined) {
      const used = await this.usage(session.userId);
      if (used > this.maxBytes)
        throw new ApiError(
          'workspace-bytes-exceeded',
          `your workspace holds ${used} bytes, more than the server allows (${this.maxBytesName}: ${this.maxBytes}); ` +
            'turns run again once it holds less (delete sessions that have a workspace of their own, or ask the operator)',
        );
    }
    return this.open(session);
  }

  /** Deletes a session's own folder (`per: 'session'`); a user's shared folder stays. */
  async remove(session: Pick<Session, 'id' | 'userId'>): Promise<void> {
    if (this.per === 'session') await rm(this.folderOf(session), { recursive: true, force: true });
  }
}

/**
 * The operator's side of a workspace that cannot be made (a file where the folder goes, a folder the server may not
 * write): which user, which folder and why, in one sentence. The user is told less (`ApiError.cause` is this).
 */
export class WorkspaceUnusableError extends Error {
  override readonly name = 'WorkspaceUnusableError';
  readonly userId: string;
  readonly folder: string;

  constructor(userId: string, folder: string, reason: string, cause: unknown) {
    super(`the workspace of user ${userId} cannot be used: ${reason}`, { cause });
    this.userId = userId;
    this.folder = folder;
  }
}

export function isWorkspaceUnusableError(error: unknown): error is WorkspaceUnusableError {
  return error instanceof WorkspaceUnusableError;
}

/** The user's 500 for a folder that cannot be made; the server's paths stay in the log. */
function unusable(userId: string, folder: string, error: unknown): ApiError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'EEXIST' || code === 'ENOTDIR'
      ? `${firstNonFolder(folder) ?? folder} is not a folder (move it away, or choose another workspace root)`
      : `making ${folder} failed (${code ?? (error instanceof Error ? error.message : String(error))})`;
  return new ApiError(
    'workspace-unusable',
    "your workspace cannot be used on this server; the operator's log says why (its line has this answer's X-Request-Id)",
    { cause: new WorkspaceUnusableError(userId, folder, reason, error) },
  );
}

/** The first path on the way to `folder` (from the root down) that exists and is not a folder. */
function firstNonFolder(folder: string): string | undefined {
  const parts: string[] = [];
  for (let at = folder; ; at = dirname(at)) {
    parts.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of parts) {
    const found = statSync(path, { throwIfNoEntry: false });
    if (found === undefined) return undefined;
    if (!found.isDirectory()) return path;
  }
  return undefined;
}

/** Whether a folder is there (anything that is not a folder, or cannot be looked at, is not). */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
