import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

let server: PostgresServer | undefined;

/**
 * One throw-away PostgreSQL server for the whole run (initdb + pg_ctl on a unix socket, as the `postgres` user when
 * run as root). When it cannot start, every test of this package fails with the reason: none is skipped.
 */
export async function setup(project: TestProject): Promise<void> {
  server = await startPostgres();
  project.provide('postgresUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
