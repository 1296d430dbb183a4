import type { Entrypoint } from '@birdie/entrypoints';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAddress, parseAllowList } from '../web/lib/address-policy.mjs';
import { fetchPage } from '../web/lib/fetch-page.mjs';
import type { Resolver } from '../web/lib/pinned-request.mjs';
import { entrypointRefusal, type LocalServer, startLocalServer, toolEntrypoint } from './helpers.js';

// The page server listens on 127.0.0.2, the one address the tests allow (BIRDIE_WEB_FETCH_ALLOW): every other
// loopback address (127.0.0.1, ::1, localhost) stays refused, so each refusal below is the policy's, not a missing
// server's. The "internal" server on 127.0.0.1 is what an attacker would want to reach: it must never see a request.
const ALLOW = '127.0.0.2';
let pages: LocalServer;
let internal: LocalServer;
let internalV6: LocalServer;
let entrypoint: Entrypoint;

const ARTICLE = `<!doctype html><html><head><title>Birds of the coast</title><style>body{color:red}</style>
<script>document.write('tracking')</script></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Birds of the coast</h1>
<p>${'Sandpipers run along the edge of the waves looking for food. '.repeat(8)}</p>
<h2>Where to see them</h2><ul><li>Mudflats at low tide</li><li>Rocky <a href="/shores">shores</a></li></ul>
<pre><code>tide --low</code></pre></article>
<footer>© 2026 Coast Watch</footer></body></html>`;

beforeAll(async () => {
  internal = await startLocalServer(() => ({ type: 'text/plain', body: 'internal secret' }));
  internalV6 = await startLocalServer(() => ({ type: 'text/plain', body: 'internal secret' }), '::1');
  pages = await startLocalServer((request) => {
    const port = new URL(internal.origin).port;
    switch (request.url.pathname) {
      case '/article':
        return { type: 'text/html; charset=utf-8', body: ARTICLE };
      case '/notes.txt':
        return { type: 'text/plain; charset=utf-8', body: 'plain *text* 👋\n' };
      case '/data.json':
        return { body: '{"a":1}' };
      case '/big.txt':
        return { type: 'text/plain', body: 'x'.repeat(50_000) };
      case '/image.png':
        return { type: 'image/png', body: '\x89PNG' };
      case '/missing':
        return { status: 404, type: 'text/plain', body: 'no such page' };
      case '/moved':
        return { status: 301, headers: { location: '/article' }, body: '' };
      case '/to-loopback':
        return { status: 302, headers: { location: `http://127.0.0.1:${port}/secret` }, body: '' };
      case '/to-mapped':
        return { status: 302, headers: { location: `http://[::ffff:127.0.0.1]:${port}/secret` }, body: '' };
      case '/to-ipv6':
        return { status: 307, headers: { location: `${internalV6.origin}/secret` }, body: '' };
      case '/to-localhost':
        return { status: 302, headers: { location: `http://localhost:${port}/secret` }, body: '' };
      case '/to-file':
        return { status: 302, headers: { location: 'file:///etc/passwd' }, body: '' };
      case '/loop':
        return { status: 302, headers: { location: '/loop' }, body: '' };
      case '/to-rebind':
        return { status: 302, headers: { location: `http://rebind.test:${port}/secret` }, body: '' };
      default:
        return undefined;
    }
  }, ALLOW);
  entrypoint = await toolEntrypoint('web', 'web_fetch');
});

afterAll(async () => {
  await Promise.all([pages?.close(), internal?.close(), internalV6?.close()]);
});

const fetchTool = async (args: Record<string, unknown>, allow = ALLOW) =>
  (await entrypoint.run(args, { timeoutMs: 20_000, env: { BIRDIE_WEB_FETCH_ALLOW: allow } })).output;

const refusal = (args: Record<string, unknown>, allow = ALLOW) =>
  entrypointRefusal(() => fetchTool(args, allow), `web_fetch ${JSON.stringify(args)}`);

/** A resolver for test host names: each name answers from its list, one answer per lookup, the last one repeating. */
function resolverOf(answers: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = ((hostname, _options, callback) => {
    asked.push(hostname);
    const list = answers[hostname];
    if (!list)
      return callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        [],
      );
    const address = (list.length > 1 ? list.shift() : list[0]) as string;
    return callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  }) as Resolver & { asked: string[] };
  resolver.asked = asked;
  return resolver;
}

describe('web: web_fetch reads pages', () => {
  it('turns an HTML page into Markdown: title, headings, lists, absolute links; no scripts, styles or menus', async () => {
    const out = await fetchTool({ url: `${pages.origin}/article` });
    expect(out).toMatch(/^# Birds of the coast\nSource: http:\/\/127\.0\.0\.2:\d+\/article\n\n/);
    expect(out).toContain('Sandpipers run along the edge of the waves');
    expect(out).toMatch(/## Where to see them/);
    expect(out).toMatch(/- +Mudflats at low tide/);
    expect(out).toContain(`[shores](${pages.origin}/shores)`);
    expect(out).toContain('```\ntide --low\n```');
    expect(out).not.toMatch(/tracking|color:red|About|Coast Watch/);
  });

  it('returns text and JSON as they are, follows a redirect, and caps what it returns', async () => {
    expect(await fetchTool({ url: `${pages.origin}/notes.txt` })).toBe(
      `Source: ${pages.origin}/notes.txt\n\nplain *text* 👋\n`,
    );
    expect(await fetchTool({ url: `${pages.origin}/data.json` })).toContain('{"a":1}');
    const moved = await fetchTool({ url: `${pages.origin}/moved` });
    expect(moved).toContain(`Source: ${pages.origin}/article (redirected from ${pages.origin}/moved)`);
    const big = await fetchTool({ url: `${pages.origin}/big.txt`, max_chars: 1000 });
    expect(big).toContain(
      `${'x'.repeat(1000)}\n\n[truncated: the page has 50000 characters; this shows the first 1000.]`,
    );
    expect(big).not.toContain('x'.repeat(1001));
    expect((await fetchTool({ url: `${pages.origin}/big.txt` })).length).toBeLessThan(21_000);
  });

  it('refuses what is not a web page or not http(s), and says why', async () => {
    expect(await refusal({ url: `${pages.origin}/image.png` })).toMatch(/image\/png .*not a text page/);
    expect(await refusal({ url: `${pages.origin}/missing` })).toMatch(/HTTP 404: no such page/);
    expect(await refusal({ url: 'file:///etc/passwd' })).toMatch(/http and https URLs only/);
    expect(await refusal({ url: 'ftp://example.com/x' })).toMatch(/http and https URLs only/);
    expect(await refusal({ url: 'not a url' })).toMatch(/is not a URL/);
    expect(await refusal({ url: `${pages.origin}/to-file` })).toMatch(
      /Refused the redirect .* http and https/,
    );
    expect(await refusal({ url: `${pages.origin}/loop` })).toMatch(/redirected more than 5 times/);
    expect(await refusal({ url: `http://user:pw@${new URL(pages.origin).host}/notes.txt` })).toMatch(
      /password/,
    );
  });
});

describe('web: web_fetch refuses addresses on the user machine and network', () => {
  it('refuses loopback addresses given directly: IPv4, IPv6, IPv4-mapped IPv6, and localhost', async () => {
    const port = new URL(internal.origin).port;
    for (const url of [
      `http://127.0.0.1:${port}/secret`,
      `http://[::1]:${new URL(internalV6.origin).port}/secret`,
      `http://[::ffff:127.0.0.1]:${port}/secret`,
      `http://[::ffff:7f00:1]:${port}/secret`,
      `http://2130706433:${port}/secret`, // 127.0.0.1 as one number: the URL parser makes it dotted
      `http://localhost:${port}/secret`,
    ]) {
      expect(await refusal({ url }), url).toMatch(/Refused .*loopback address/);
    }
    // https goes through the same checked lookup; 0 is 0.0.0.0, which reaches the machine itself.
    expect(await refusal({ url: `https://localhost:${port}/secret` })).toMatch(
      /Refused localhost \(127\.0\.0\.1\)/,
    );
    expect(await refusal({ url: `http://0:${port}/secret` })).toMatch(
      /Refused 0\.0\.0\.0: it is an unspecified address/,
    );
    expect(internal.requests).toEqual([]);
    expect(internalV6.requests).toEqual([]);
  });

  it('refuses a redirect to a loopback address (every hop is checked), before connecting', async () => {
    for (const path of ['/to-loopback', '/to-mapped', '/to-ipv6', '/to-localhost']) {
      expect(await refusal({ url: `${pages.origin}${path}` }), path).toMatch(/Refused .*loopback address/);
    }
    expect(internal.requests).toEqual([]);
    expect(internalV6.requests).toEqual([]);
  });

  it('refuses a host name that resolves to a loopback address, checking the address it connects to', async () => {
    const port = new URL(pages.origin).port;
    const resolver = resolverOf({
      'pages.test': ['127.0.0.2'],
      'evil.test': ['127.0.0.1'],
      'mixed.test': ['127.0.0.2', '127.0.0.1'],
    });
    // The same path with a resolver that knows the test names: a name for the allowed address is fetched …
    expect(
      await fetchPage({ url: `http://pages.test:${port}/notes.txt` }, { allow: ALLOW, resolver }),
    ).toContain('plain *text*');
    // … and a name for a loopback address is refused.
    await expect(
      fetchPage(
        { url: `http://evil.test:${new URL(internal.origin).port}/secret` },
        { allow: ALLOW, resolver },
      ),
    ).rejects.toThrow(/Refused evil\.test \(127\.0\.0\.1\): it is a loopback address/);
    expect(internal.requests).toEqual([]);
    expect(resolver.asked).toEqual(['pages.test', 'evil.test']);
  });

  it('leaves no rebinding window: a name that first answers an allowed address and then a loopback one is refused on the hop that connects to it', async () => {
    const port = new URL(pages.origin).port;
    // rebind.test answers 127.0.0.2 (allowed) to the first lookup and 127.0.0.1 to every later one. The first hop
    // connects to what its lookup checked; the redirect's hop resolves again, and that answer is checked too.
    const resolver = resolverOf({ 'rebind.test': ['127.0.0.2', '127.0.0.1'] });
    await expect(
      fetchPage({ url: `http://rebind.test:${port}/to-rebind` }, { allow: ALLOW, resolver }),
    ).rejects.toThrow(/Refused rebind\.test \(127\.0\.0\.1\)/);
    expect(resolver.asked).toEqual(['rebind.test', 'rebind.test']);
    expect(pages.requests.filter((r) => r.url.pathname === '/to-rebind')).toHaveLength(1);
    expect(internal.requests).toEqual([]);
  });

  it('refuses a host whose addresses include a private one, even when the first is allowed', async () => {
    const resolver: Resolver = (_host, _options, callback) =>
      callback(null, [
        { address: '127.0.0.2', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]);
    await expect(
      fetchPage(
        { url: `http://both.test:${new URL(pages.origin).port}/notes.txt` },
        { allow: ALLOW, resolver },
      ),
    ).rejects.toThrow(/Refused both\.test \(10\.0\.0\.1\): it is a private-network address/);
  });

  it('classifies addresses: only public unicast passes unless a network is allowed', () => {
    const none = parseAllowList(undefined);
    const blocked = [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      'ff02::1',
    ];
    for (const address of blocked) {
      expect(() => checkAddress(address, none, address), address).toThrow(/Refused/);
    }
    for (const address of ['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001::200e']) {
      expect(() => checkAddress(address, none, address), address).not.toThrow();
    }
    const lab = parseAllowList('10.0.0.0/8, fd00::/8 192.168.1.5');
    expect(() => checkAddress('10.9.9.9', lab, 'lab')).not.toThrow();
    expect(() => checkAddress('::ffff:10.9.9.9', lab, 'lab')).not.toThrow();
    expect(() => checkAddress('fd00::1', lab, 'lab')).not.toThrow();
    expect(() => checkAddress('192.168.1.5', lab, 'lab')).not.toThrow();
    expect(() => checkAddress('192.168.1.6', lab, 'lab')).toThrow(/private-network/);
    expect(() => checkAddress('127.0.0.1', lab, 'lab')).toThrow(/loopback/);
    expect(() => parseAllowList('10.0.0.0/8, localhost')).toThrow(/"localhost", which is not an IP address/);
  });

  it('with nothing allowed, the page server itself is refused', async () => {
    expect(await refusal({ url: `${pages.origin}/article` }, '')).toMatch(
      /Refused 127\.0\.0\.2: it is a loopback address/,
    );
  });
});
