import type { Store } from '@birdie/store';
import { StoreError } from '@birdie/store';
import { afterEach, beforeEach, expect } from 'vitest';
import type { Backend, BackendEnv } from '../backends.js';

export interface Contract {
  env: BackendEnv;
  store: Store;
}

/** A fresh store of `backend` before each test (in `t.env`, `t.store`), closed and removed after it. */
export function useBackend(backend: Backend): Contract {
  const t = {} as Contract;
  beforeEach(async () => {
    t.env = await backend.fresh();
    t.store = await t.env.open();
  });
  afterEach(async () => {
    await t.env.cleanup();
  });
  return t;
}

/** The `code` of the StoreError `fn` rejects (or throws) with; undefined when it succeeds. */
export async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return (error as StoreError).code;
  }
  return undefined;
}

/** The StoreError `promise` rejects with. */
export async function rejection(promise: Promise<unknown> | (() => unknown)): Promise<StoreError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a rejection');
}
