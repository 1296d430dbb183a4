import { readFileSync } from 'node:fs';
import { type Entrypoint, isEntrypointError } from '@birdie/entrypoints';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, type RecordedRequest, startLocalServer, toolEntrypoint } from './helpers.js';

const page = (name: string) =>
  readFileSync(new URL(`./fixtures/web-search/${name}.html`, import.meta.url), 'utf8');

/** Answers like html.duckduckgo.com: the result page, the "No results." page, or the bot check (202). */
function duckduckgo(request: RecordedRequest) {
  if (request.url.pathname !== '/html/') return undefined;
  const query = new URLSearchParams(request.body).get('q') ?? '';
  const type = 'text/html; charset=UTF-8';
  if (query.startsWith('qxzv')) return { type, body: page('no-results') };
  if (query === 'too many searches') return { status: 202, type, body: page('anomaly') };
  if (query === 'server trouble')
    return { status: 503, type, body: '<html><body>Service unavailable</body></html>' };
  return { type, body: page('results') };
}

let server: LocalServer;
let env: Record<string, string>;
let search: Entrypoint;
const saved = process.env.BIRDIE_WEB_SEARCH_BASE_URL;

async function call(args: Record<string, unknown>): Promise<string> {
  return (await search.run(args, { env, timeoutMs: 10_000 })).output;
}

async function failure(args: Record<string, unknown>): Promise<string> {
  const error = await search.run(args, { env, timeoutMs: 10_000 }).catch((caught: unknown) => caught);
  if (!isEntrypointError(error)) throw new Error('expected an EntrypointError');
  return error.message;
}

beforeAll(async () => {
  server = await startLocalServer(duckduckgo);
  env = { BIRDIE_WEB_SEARCH_BASE_URL: server.origin };
  // node: tools run in-process; the base URL reaches them through the call's env and, as a fallback, the process's.
  process.env.BIRDIE_WEB_SEARCH_BASE_URL = server.origin;
  search = await toolEntrypoint('web-search', 'web_search');
});

afterAll(async () => {
  if (saved === undefined) delete process.env.BIRDIE_WEB_SEARCH_BASE_URL;
  else process.env.BIRDIE_WEB_SEARCH_BASE_URL = saved;
  await server.close();
});

describe('web-search', () => {
  it('returns title, real URL and snippet per result, without the ad, five by default', async () => {
    server.requests.length = 0;
    expect(await call({ query: 'rust borrow checker' })).toBe(
      [
        'Results for "rust borrow checker" (5 of 5):',
        '',
        '1. References and Borrowing - The Rust Programming Language',
        '   https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html',
        "   A reference is like a pointer in that it's an address we can follow to access the data stored at that address; that data is owned by some other variable. Unlike a pointer, a reference is guaranteed to point to a valid value of a particular type for the life of that reference. The borrow checker enforces these rules at compile time.",
        '',
        '2. Fighting the Borrow Checker & Winning: 5 Patterns …',
        '   https://blog.example.dev/posts/fighting-the-borrow-checker?ref=ddg&lang=en',
        '   When the compiler says "cannot borrow `x` as mutable more than once", it\'s telling you about aliasing — here are five ways to restructure code so that the borrow checker agrees.',
        '',
        '3. Rust (programming language) - Wikipedia',
        '   https://en.wikipedia.org/wiki/Rust_(programming_language)',
        '   Rust is a general-purpose programming language emphasizing performance, type safety and concurrency. It enforces memory safety without a garbage collector; its "borrow checker" tracks the lifetime of references at compile time.',
        '',
        '4. Cannot borrow as mutable because it is also borrowed as immutable',
        '   https://stackoverflow.example.com/questions/47618823/cannot-borrow-as-mutable-because-it-is-also-borrowed-as-immutable',
        "   I'm getting error[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable <Vec<i32>> when pushing inside a loop.",
        '',
        '5. rust-lang/polonius: Defines the Rust borrow checker. - GitHub',
        '   https://github.example.org/rust-lang/polonius',
        '   Polonius is a new formulation of the borrow checker, expressed as Datalog rules. Café-style naïve résumé — ünïcödé 🦀 survives.',
      ].join('\n'),
    );
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      q: 'rust borrow checker',
      b: '',
    });
  });

  it('honours max_results, region and time_range', async () => {
    server.requests.length = 0;
    const output = await call({
      query: 'rust borrow checker',
      max_results: 2,
      region: 'de-de',
      time_range: 'week',
    });
    expect(output.split('\n')[0]).toBe('Results for "rust borrow checker" (2 of 5):');
    expect(output).toContain('2. Fighting the Borrow Checker');
    expect(output).not.toContain('3. ');
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]?.body))).toEqual({
      q: 'rust borrow checker',
      b: '',
      kl: 'de-de',
      df: 'w',
    });
  });

  it('sends hostile queries as data', async () => {
    server.requests.length = 0;
    const query = `"quoted" & q=evil; $(rm -rf ~) \n 日本語 #frag`;
    await call({ query });
    expect(server.requests[0]?.url.pathname).toBe('/html/');
    expect(new URLSearchParams(server.requests[0]?.body).get('q')).toBe(query.trim());
  });

  it('says so when nothing was found', async () => {
    expect(await call({ query: 'qxzvkjwplmrt zzyzx flurbo' })).toBe(
      'No results for "qxzvkjwplmrt zzyzx flurbo". Try fewer or different keywords.',
    );
  });

  it('recognises the bot check and says what to do', async () => {
    expect(await failure({ query: 'too many searches' })).toMatch(
      /DuckDuckGo answered with a bot check instead of results\. Wait a minute/,
    );
  });

  it('reports a failing service and bad arguments clearly', async () => {
    expect(await failure({ query: 'server trouble' })).toMatch(
      /DuckDuckGo answered 503; try again in a moment\./,
    );
    expect(await failure({ query: '   ' })).toMatch(/Give a search query/);
    expect(await failure({ query: 'x', max_results: 50 })).toMatch(
      /max_results must be a whole number from 1 to 20/,
    );
    expect(await failure({ query: 'x', time_range: 'decade' })).toMatch(
      /time_range must be one of day, week/,
    );
  });
});
