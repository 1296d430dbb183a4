// The weather skill's tools, called by birdie's `node:` entrypoint as `(args, context)`: a place name is looked up with
// Open-Meteo's geocoding API, then its forecast API answers for those coordinates. Base URLs come from `context.env`,
// else the process environment (lib/open-meteo.mjs).
import { findPlace, forecast, label, WeatherError } from './lib/open-meteo.mjs';
import { compass, describeWeather } from './lib/wmo.mjs';

const CURRENT = [
  'temperature_2m',
  'apparent_temperature',
  'relative_humidity_2m',
  'precipitation',
  'weather_code',
  'wind_speed_10m',
  'wind_direction_10m',
].join(',');
const DAILY = [
  'weather_code',
  'temperature_2m_max',
  'temperature_2m_min',
  'precipitation_sum',
  'precipitation_probability_max',
  'wind_speed_10m_max',
].join(',');

/** @typedef {import('./lib/open-meteo.mjs').ToolContext} ToolContext */

/** @param {{ place: string; units?: string }} args @param {ToolContext} [context] */
export async function get_current_weather(args, context) {
  const units = unitsOf(args.units);
  const place = await findPlace(requirePlace(args.place), context);
  const data = await forecast(place, { current: CURRENT }, units, context);
  const now = data.current ?? {};
  const unit = data.current_units ?? {};
  const wind = `${now.wind_speed_10m} ${unit.wind_speed_10m ?? ''} ${compass(now.wind_direction_10m)}`.trim();
  return [
    `${label(place)} (${coordinates(place)}), local time ${now.time ?? 'unknown'} (${data.timezone ?? 'local'})`,
    `Conditions: ${describeWeather(now.weather_code)}`,
    `Temperature: ${now.temperature_2m}${unit.temperature_2m ?? ''} (feels like ${now.apparent_temperature}${unit.apparent_temperature ?? ''})`,
    `Humidity: ${now.relative_humidity_2m}${unit.relative_humidity_2m ?? '%'}`,
    `Precipitation: ${now.precipitation} ${unit.precipitation ?? ''}`.trimEnd(),
    `Wind: ${wind}`,
  ].join('\n');
}

/** @param {{ place: string; days?: number; units?: string }} args @param {ToolContext} [context] */
export async function get_forecast(args, context) {
  const units = unitsOf(args.units);
  const days = args.days ?? 3;
  if (!Number.isInteger(days) || days < 1 || days > 16) {
    throw new WeatherError(
      'bad-days',
      `days must be a whole number from 1 to 16, not ${JSON.stringify(days)}.`,
    );
  }
  const place = await findPlace(requirePlace(args.place), context);
  const data = await forecast(place, { daily: DAILY, forecast_days: String(days) }, units, context);
  const daily = data.daily ?? {};
  const unit = data.daily_units ?? {};
  const dates = Array.isArray(daily.time) ? daily.time : [];
  const lines = [`${days}-day forecast for ${label(place)} (${coordinates(place)}):`];
  dates.forEach((/** @type {string} */ date, /** @type {number} */ index) => {
    const at = (/** @type {string} */ key) => daily[key]?.[index];
    const chance = at('precipitation_probability_max');
    lines.push(
      `${date}: ${describeWeather(at('weather_code'))}, ` +
        `${at('temperature_2m_min')}–${at('temperature_2m_max')}${unit.temperature_2m_max ?? ''}, ` +
        `precipitation ${at('precipitation_sum')} ${unit.precipitation_sum ?? ''}` +
        (chance === null || chance === undefined ? '' : ` (${chance}% chance)`) +
        `, wind up to ${at('wind_speed_10m_max')} ${unit.wind_speed_10m_max ?? ''}`.trimEnd(),
    );
  });
  return lines.join('\n');
}

/** @param {unknown} value @returns {'metric' | 'imperial'} */
function unitsOf(value) {
  if (value === undefined || value === 'metric') return 'metric';
  if (value === 'imperial') return 'imperial';
  throw new WeatherError('bad-units', `units must be "metric" or "imperial", not ${JSON.stringify(value)}.`);
}

/** @param {unknown} value */
function requirePlace(value) {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new WeatherError('bad-place', 'Give a place name, e.g. "Graz" or "Springfield, Illinois".');
  }
  return value.trim();
}

/** @param {{ latitude: number; longitude: number }} place */
function coordinates(place) {
  return `${place.latitude.toFixed(2)}, ${place.longitude.toFixed(2)}`;
}
