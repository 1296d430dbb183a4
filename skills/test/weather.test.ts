import { readFileSync } from 'node:fs';
import { type Entrypoint, isEntrypointError } from '@birdie/entrypoints';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, type RecordedRequest, startLocalServer, toolEntrypoint } from './helpers.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/weather/${name}.json`, import.meta.url), 'utf8');

/** Answers like Open-Meteo: geocoding by name, forecasts by the blocks and units asked for. */
function openMeteo(request: RecordedRequest) {
  const query = request.url.searchParams;
  if (request.url.pathname === '/v1/search') {
    const name = query.get('name');
    if (name === 'Graz') return { body: fixture('geocoding-graz') };
    if (name === 'Springfield') return { body: fixture('geocoding-springfield') };
    // A place the forecast API will refuse, to see its error reason reach the model.
    if (name === 'Nowhere')
      return { body: '{"results":[{"id":1,"name":"Nowhere","latitude":99.5,"longitude":0}]}' };
    return { body: fixture('geocoding-empty') };
  }
  if (request.url.pathname === '/v1/forecast') {
    if (Number(query.get('latitude')) > 90) return { status: 400, body: fixture('forecast-error') };
    if (query.has('current')) return { body: fixture('forecast-current-metric') };
    return {
      body: fixture(
        query.get('temperature_unit') === 'fahrenheit' ? 'forecast-daily-imperial' : 'forecast-daily-metric',
      ),
    };
  }
  return undefined;
}

let server: LocalServer;
let env: Record<string, string>;
let current: Entrypoint;
let forecast: Entrypoint;
const saved = { ...process.env };

async function call(entrypoint: Entrypoint, args: Record<string, unknown>): Promise<string> {
  return (await entrypoint.run(args, { env, timeoutMs: 10_000 })).output;
}

beforeAll(async () => {
  server = await startLocalServer(openMeteo);
  env = { BIRDIE_WEATHER_BASE_URL: server.origin, BIRDIE_GEOCODING_BASE_URL: server.origin };
  // node: tools run in-process; the base URLs reach them through the call's env and, as a fallback, the process's.
  Object.assign(process.env, env);
  current = await toolEntrypoint('weather', 'get_current_weather');
  forecast = await toolEntrypoint('weather', 'get_forecast');
});

afterAll(async () => {
  for (const key of ['BIRDIE_WEATHER_BASE_URL', 'BIRDIE_GEOCODING_BASE_URL']) {
    if (saved[key] === undefined) delete process.env[key];
  }
  await server.close();
});

describe('weather: get_current_weather', () => {
  it('looks the place up, then asks for its current conditions in metric units', async () => {
    server.requests.length = 0;
    expect(await call(current, { place: 'Graz' })).toBe(
      [
        'Graz, Styria, Austria (47.07, 15.45), local time 2026-11-21T22:45 (Europe/Vienna)',
        'Conditions: overcast',
        'Temperature: 1.8°C (feels like -1.9°C)',
        'Humidity: 86%',
        'Precipitation: 0 mm',
        'Wind: 6.5 km/h NW',
      ].join('\n'),
    );
    const [geocode, weather] = server.requests;
    expect(Object.fromEntries(geocode?.url.searchParams ?? [])).toEqual({
      name: 'Graz',
      count: '10',
      language: 'en',
      format: 'json',
    });
    expect(Object.fromEntries(weather?.url.searchParams ?? [])).toMatchObject({
      latitude: '47.06667',
      longitude: '15.45',
      timezone: 'auto',
      temperature_unit: 'celsius',
      wind_speed_unit: 'kmh',
      precipitation_unit: 'mm',
    });
    expect(weather?.url.searchParams.get('current')?.split(',')).toContain('weather_code');
  });

  it('says clearly when a place does not exist', async () => {
    const error = await current
      .run({ place: 'Qwxzzyville' }, { env, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(isEntrypointError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /No place called "Qwxzzyville" was found\. Check the spelling or try a larger town nearby\./,
    );
  });

  it('names the candidates when the qualifier matches none of them', async () => {
    const error = await current
      .run({ place: 'Springfield, Narnia' }, { env, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /No place called "Springfield, Narnia" was found\. Places with that name: Springfield, Missouri, United States; Springfield, Massachusetts, United States;/,
    );
  });

  it('rejects units it does not know', async () => {
    const error = await current
      .run({ place: 'Graz', units: 'kelvin' }, { env, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/units must be "metric" or "imperial"/);
  });
});

describe('weather: get_forecast', () => {
  it('narrows an ambiguous name by region and uses imperial units on request', async () => {
    server.requests.length = 0;
    expect(await call(forecast, { place: 'Springfield, Illinois', days: 2, units: 'imperial' })).toBe(
      [
        '2-day forecast for Springfield, Illinois, United States (39.80, -89.64):',
        '2026-11-21: partly cloudy, 37.9–54.3°F, precipitation 0 inch (5% chance), wind up to 12.4 mp/h',
        '2026-11-22: thunderstorm, 48.2–61°F, precipitation 0.72 inch (90% chance), wind up to 23.9 mp/h',
      ].join('\n'),
    );
    const weather = server.requests[1];
    expect(Object.fromEntries(weather?.url.searchParams ?? [])).toMatchObject({
      latitude: '39.80172',
      longitude: '-89.64371',
      forecast_days: '2',
      temperature_unit: 'fahrenheit',
      wind_speed_unit: 'mph',
      precipitation_unit: 'inch',
    });
  });

  it('defaults to three days in metric units (the schema default reaches the tool)', async () => {
    const output = await call(forecast, { place: 'Graz, AT' });
    expect(output.split('\n')).toEqual([
      '3-day forecast for Graz, Styria, Austria (47.07, 15.45):',
      '2026-11-21: overcast, -0.6–5.2°C, precipitation 0 mm (8% chance), wind up to 9.7 km/h',
      '2026-11-22: light rain, 1.2–4.1°C, precipitation 6.4 mm (83% chance), wind up to 14.8 km/h',
      '2026-11-23: light snow, -2.4–1.3°C, precipitation 3.1 mm (65% chance), wind up to 11.2 km/h',
    ]);
  });

  it('picks the place in the named country', async () => {
    server.requests.length = 0;
    await call(forecast, { place: 'Graz, Germany', days: 1 });
    expect(server.requests[1]?.url.searchParams.get('latitude')).toBe('51.62889');
  });

  it('refuses a days value out of range before any request', async () => {
    server.requests.length = 0;
    const error = await forecast
      .run({ place: 'Graz', days: 40 }, { env, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/days must be a whole number from 1 to 16/);
    expect(server.requests).toEqual([]);
  });
});

describe('weather: find_place (http:get)', () => {
  it('sends the name percent-encoded and extra arguments as the query, and returns the JSON', async () => {
    const findPlace = await toolEntrypoint('weather', 'find_place', {
      from: 'https://geocoding-api.open-meteo.com',
      to: server.origin,
    });
    server.requests.length = 0;
    const output = await findPlace.run({ name: 'Springfield' }, { timeoutMs: 10_000 });
    expect(JSON.parse(output.output)).toEqual(JSON.parse(fixture('geocoding-springfield')));
    expect(server.requests[0]?.url.searchParams.get('count')).toBe('5');

    server.requests.length = 0;
    await findPlace.run({ name: 'Graz&count=99/../x', count: 2 }, { timeoutMs: 10_000 });
    const sent = server.requests[0]?.url;
    expect(sent?.pathname).toBe('/v1/search');
    expect(sent?.searchParams.get('name')).toBe('Graz&count=99/../x');
    expect(sent?.searchParams.getAll('count')).toEqual(['2']);
  });
});

describe('weather: service errors', () => {
  it("passes the service's reason on", async () => {
    const error = await forecast
      .run({ place: 'Nowhere' }, { env, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /The weather service answered 400: Latitude must be in range of -90 to 90°\. Given: 99\.5\./,
    );
  });

  it('says which service could not be reached', async () => {
    const { get_current_weather } = await import('../weather/tools.mjs');
    const closed = await startLocalServer(() => undefined);
    await closed.close();
    const error = await get_current_weather(
      { place: 'Graz' },
      { env: { BIRDIE_GEOCODING_BASE_URL: closed.origin } },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network' });
    expect((error as Error).message).toMatch(new RegExp(`Could not reach ${closed.origin}: ECONNREFUSED`));
  });
});
