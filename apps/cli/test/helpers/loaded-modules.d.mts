export const CLI_ROOT: string;
export const DIST: string;
export function traceImports(
  bin: string,
  args: string[],
  options?: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string },
): Promise<string[]>;
export function sourcesOf(urls: string[]): string[];
export function sourceName(chunkPath: string, source: string): string;
export function packageOf(source: string): string;
