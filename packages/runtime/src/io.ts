/**
 * What the runtime may touch of its process. It prints nothing itself: its warnings (one line each) go to
 * `stderr`, which a front end points at its terminal, its log or nowhere.
 */
export interface RuntimeIo {
  env: NodeJS.ProcessEnv;
  /** The folder relative paths and the default workspace are resolved from. */
  cwd: string;
  /** Where warnings go. */
  stderr: { write(text: string): unknown };
  /**
   * The front end's own skills and agents (the `bundled` layer, below the user's). Absent: there is no bundled
   * layer. The CLI passes the folders shipped in its package.
   */
  bundled?: { skills?: string; agents?: string };
}

/** Writes one warning line (a newline is added when missing). */
export function warn(io: Pick<RuntimeIo, 'stderr'>, line: string): void {
  io.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
}
