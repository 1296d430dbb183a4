// Open-Meteo needs no key. Both base URLs can be changed through the environment (tests point them at a local server).
const DEFAULT_GEOCODING = 'https://geocoding-api.open-meteo.com';
const DEFAULT_FORECAST = 'https://api.open-meteo.com';

export class WeatherError extends Error {
  /** @param {string} code @param {string} message @param {unknown} [cause] */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WeatherError';
    this.code = code;
  }
}

/** @typedef {{ signal?: AbortSignal; env?: Record<string, string> }} ToolContext */

/** @param {ToolContext | undefined} context @param {string} name @param {string} fallback */
function baseUrl(context, name, fallback) {
  const value = context?.env?.[name] ?? process.env[name] ?? fallback;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WeatherError('bad-config', `${name} must be an http(s) URL, not ${value}.`);
  }
  return url;
}

export const UNITS = {
  metric: { temperature_unit: 'celsius', wind_speed_unit: 'kmh', precipitation_unit: 'mm' },
  imperial: { temperature_unit: 'fahrenheit', wind_speed_unit: 'mph', precipitation_unit: 'inch' },
};

/**
 * @param {URL} url
 * @param {ToolContext | undefined} context
 * @returns {Promise<any>}
 */
async function getJson(url, context) {
  let response;
  try {
    response = await fetch(url, { signal: context?.signal, headers: { accept: 'application/json' } });
  } catch (error) {
    if (context?.signal?.aborted) throw error;
    throw new WeatherError('network', `Could not reach ${url.origin}: ${reasonOf(error)}.`, error);
  }
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new WeatherError('bad-response', `${url.origin} answered with something that is not JSON.`, error);
  }
  if (!response.ok || body?.error) {
    const reason = body?.reason ? `: ${body.reason}` : '';
    throw new WeatherError('service-error', `The weather service answered ${response.status}${reason}.`);
  }
  return body;
}

/**
 * @typedef {{ name: string; latitude: number; longitude: number; country?: string; country_code?: string;
 *   admin1?: string; timezone?: string }} Place
 */

/**
 * Finds one place by name. "Springfield, Illinois" or "Paris, FR" narrow the match by region or country.
 * @param {string} query
 * @param {ToolContext | undefined} context
 * @returns {Promise<Place>}
 */
export async function findPlace(query, context) {
  const [name = '', ...qualifiers] = query.split(',').map((part) => part.trim());
  if (!name)
    throw new WeatherError('bad-place', 'Give a place name, e.g. "Graz" or "Springfield, Illinois".');
  const url = new URL('/v1/search', baseUrl(context, 'BIRDIE_GEOCODING_BASE_URL', DEFAULT_GEOCODING));
  url.search = new URLSearchParams({ name, count: '10', language: 'en', format: 'json' }).toString();
  const body = await getJson(url, context);
  /** @type {Place[]} */
  const results = Array.isArray(body?.results) ? body.results : [];
  const qualifier = qualifiers.join(' ').toLowerCase();
  const match = qualifier ? results.find((place) => matches(place, qualifier)) : results[0];
  if (match) return match;
  const others = results.slice(0, 5).map(label).join('; ');
  throw new WeatherError(
    'place-not-found',
    `No place called "${query}" was found.` +
      (others ? ` Places with that name: ${others}.` : ' Check the spelling or try a larger town nearby.'),
  );
}

/** @param {Place} place @param {string} qualifier */
function matches(place, qualifier) {
  return [place.country, place.country_code, place.admin1]
    .filter((value) => typeof value === 'string')
    .some((value) => value.toLowerCase() === qualifier || value.toLowerCase().startsWith(qualifier));
}

/** @param {Place} place */
export function label(place) {
  return [place.name, place.admin1, place.country].filter(Boolean).join(', ');
}

/**
 * @param {Place} place
 * @param {Record<string, string>} params forecast parameters (`current`, `daily`, `forecast_days`, …)
 * @param {'metric' | 'imperial'} units
 * @param {ToolContext | undefined} context
 */
export function forecast(place, params, units, context) {
  const url = new URL('/v1/forecast', baseUrl(context, 'BIRDIE_WEATHER_BASE_URL', DEFAULT_FORECAST));
  url.search = new URLSearchParams({
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    timezone: 'auto',
    ...UNITS[units],
    ...params,
  }).toString();
  return getJson(url, context);
}

/**
 * The most useful words about a failed fetch: the socket's code (ECONNREFUSED, ENOTFOUND…) when there is one.
 * @param {unknown} error
 */
function reasonOf(error) {
  const cause = /** @type {{ cause?: { code?: string } }} */ (error).cause;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}
