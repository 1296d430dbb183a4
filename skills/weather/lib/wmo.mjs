// WMO weather interpretation codes as Open-Meteo returns them in `weather_code`.
const CODES = new Map([
  [0, 'clear sky'],
  [1, 'mainly clear'],
  [2, 'partly cloudy'],
  [3, 'overcast'],
  [45, 'fog'],
  [48, 'freezing fog'],
  [51, 'light drizzle'],
  [53, 'drizzle'],
  [55, 'dense drizzle'],
  [56, 'light freezing drizzle'],
  [57, 'freezing drizzle'],
  [61, 'light rain'],
  [63, 'rain'],
  [65, 'heavy rain'],
  [66, 'light freezing rain'],
  [67, 'freezing rain'],
  [71, 'light snow'],
  [73, 'snow'],
  [75, 'heavy snow'],
  [77, 'snow grains'],
  [80, 'light rain showers'],
  [81, 'rain showers'],
  [82, 'violent rain showers'],
  [85, 'light snow showers'],
  [86, 'heavy snow showers'],
  [95, 'thunderstorm'],
  [96, 'thunderstorm with light hail'],
  [99, 'thunderstorm with heavy hail'],
]);

/** @param {unknown} code */
export function describeWeather(code) {
  return CODES.get(Number(code)) ?? `weather code ${String(code)}`;
}

const COMPASS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];

/** @param {unknown} degrees */
export function compass(degrees) {
  const value = Number(degrees);
  if (!Number.isFinite(value)) return '';
  return COMPASS[Math.round((((value % 360) + 360) % 360) / 45) % 8] ?? '';
}
