import { VENDOR_NAMES as PROVIDER_VENDORS } from '@birdie/providers';
import { expect, it } from 'vitest';
import { unknownVendorOf, VENDOR_NAMES } from './model-spec.js';

it('knows exactly the vendors @birdie/providers builds models for', () => {
  expect([...VENDOR_NAMES]).toEqual([...PROVIDER_VENDORS]);
  expect(Object.isFrozen(VENDOR_NAMES)).toBe(true);
});

it('names the vendor of a vendor:model no provider builds, and nothing for a tier or a known vendor', () => {
  expect(unknownVendorOf('zork:gpt-4')).toBe('zork');
  expect(unknownVendorOf('openai:gpt-4o')).toBeUndefined();
  expect(unknownVendorOf('fast')).toBeUndefined();
});
