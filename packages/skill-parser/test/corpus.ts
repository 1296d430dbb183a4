import { fileURLToPath } from 'node:url';

/** The corpus lives beside the checkout, <repo>/../shared/corpus; BIRDIE_CORPUS points elsewhere (e.g. a CI clone). */
export const corpus =
  process.env.BIRDIE_CORPUS ?? fileURLToPath(new URL('../../../../shared/corpus', import.meta.url));
