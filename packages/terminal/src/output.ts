import type { Writable } from 'node:stream';

/** A stream text is rendered to: a terminal when `isTTY`, `columns` wide; else a pipe or a file. */
export type Output = Writable & { isTTY?: boolean; columns?: number };

/** What a report on stderr needs of its process: the stream, the environment (NO_COLOR) and the folder paths are shown from. */
export interface ReportIo {
  stderr: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
}
