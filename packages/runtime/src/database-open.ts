import type { Store } from '@birdie/store';
import type { DatabaseChoice } from './database.js';
import { storeFailure } from './store-failure.js';

/** Opens the PostgreSQL store (applying pending migrations); a store failure leaves in its one wording. */
export async function openServerStore(choice: Extract<DatabaseChoice, { kind: 'postgres' }>): Promise<Store> {
  const [{ openPostgresStore }, { StoreError }] = await Promise.all([
    import('@birdie/store-postgres'),
    import('@birdie/store/errors'),
  ]);
  try {
    return await openPostgresStore({ url: choice.url, schema: choice.schema, ...choice.timeouts });
  } catch (error) {
    if (error instanceof StoreError) {
      const failure = storeFailure(error);
      failure.message = `${failure.message} (database from ${choice.from})`;
      throw failure;
    }
    throw error;
  }
}
