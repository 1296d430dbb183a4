import { fileURLToPath } from 'node:url';
import { publishedTypeProblems } from '@birdie/test-utils';
import { expect, it } from 'vitest';

it('its published declarations type-check for a consumer: every package they import brings its types', () => {
  expect(publishedTypeProblems(fileURLToPath(new URL('..', import.meta.url)))).toEqual([]);
});
