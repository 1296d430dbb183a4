import { describe, expect, it } from 'vitest';
import { redactUrlsIn, redactUserinfoIn } from './redact.js';

describe('redacting URLs inside text', () => {
  it('redacts every URL of a message and leaves the rest alone', () => {
    expect(redactUrlsIn('GET https://a:b@x.example/p?k=v failed; see http://y.example/')).toBe(
      'GET https://REDACTED@x.example/p?k=REDACTED failed; see http://y.example/',
    );
  });

  it('only takes the userinfo out of a body, whose links and query strings are data', () => {
    expect(redactUserinfoIn('{"next":"https://t0k3n@api.example/items?page=2"}')).toBe(
      '{"next":"https://REDACTED@api.example/items?page=2"}',
    );
  });
});
