import { describe, expect, it } from 'vitest';
import { Api, ApiFailure, shownFailure } from './api.js';

// Reported: a token typed with a character outside Latin-1 (`héllo wörld 💥`, a pasted zero-width space) was answered
// "The server could not be reached (… non ISO-8859-1 code point)" while the server was up: fetch refuses such a
// header before sending anything. No token has such characters: it is not valid, and said so.
describe('Api', () => {
  it('refuses a token with characters no token has as not valid (401), without a request', async () => {
    for (const token of ['héllo wörld 💥', 'bdt_abc\u200b', 'two words']) {
      let unauthorized = 0;
      const failure = await new Api(token, () => unauthorized++).sessions().catch((e: unknown) => e);
      expect(failure, token).toBeInstanceOf(ApiFailure);
      expect((failure as ApiFailure).status).toBe(401);
      expect((failure as ApiFailure).message).toContain('not valid');
      expect(unauthorized).toBe(1);
    }
  });
});

// Reported: renaming a chat to a blank title said "invalid json: title: a session title is 1-200 characters": the
// user typed a title, not JSON. The API's message is for programs; the page says what is wrong with the field.
describe('shownFailure', () => {
  it("drops the API's where-prefix of a refused request, and keeps other messages as they are", () => {
    expect(
      shownFailure(
        new ApiFailure(
          400,
          'invalid-request',
          'invalid request body: title: a session title is 1-200 characters',
        ),
      ),
    ).toBe('A session title is 1-200 characters');
    expect(shownFailure(new ApiFailure(400, 'invalid-request', 'invalid query: q: too long'))).toBe(
      'Too long',
    );
    expect(shownFailure(new ApiFailure(409, 'session-busy', 'the session is busy'))).toBe(
      'the session is busy',
    );
    expect(shownFailure(new Error('boom'))).toBe('boom');
  });
});
