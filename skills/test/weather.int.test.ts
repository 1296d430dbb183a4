// Against the real Open-Meteo services (network needed; not part of `pnpm test`: run `pnpm test:int`).
import { describe, expect, it } from 'vitest';
import { toolEntrypoint } from './helpers.js';

describe('weather against Open-Meteo', () => {
  it('gives the current weather for a real city', async () => {
    const current = await toolEntrypoint('weather', 'get_current_weather');
    const { output } = await current.run({ place: 'Vienna, Austria' }, { timeoutMs: 30_000 });
    expect(output).toMatch(/^Vienna, Vienna, Austria \(48\.2\d, 16\.3\d\)/);
    expect(output).toMatch(/Temperature: -?\d+(\.\d)?°C/);
  });

  it('gives a 2-day forecast in imperial units', async () => {
    const forecast = await toolEntrypoint('weather', 'get_forecast');
    const { output } = await forecast.run(
      { place: 'Springfield, Illinois', days: 2, units: 'imperial' },
      { timeoutMs: 30_000 },
    );
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^2-day forecast for Springfield, Illinois, United States/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(/°F, precipitation [\d.]+ inch/);
  });

  it('says when a place does not exist', async () => {
    const current = await toolEntrypoint('weather', 'get_current_weather');
    await expect(current.run({ place: 'Qxzvkjwplmrtville' }, { timeoutMs: 30_000 })).rejects.toThrow(
      /No place called "Qxzvkjwplmrtville" was found/,
    );
  });

  it('find_place returns the geocoding JSON through http:get', async () => {
    const findPlace = await toolEntrypoint('weather', 'find_place');
    const { output } = await findPlace.run({ name: 'Graz', count: 2 }, { timeoutMs: 30_000 });
    const body = JSON.parse(output);
    expect(body.results[0]).toMatchObject({ name: 'Graz', country_code: 'AT' });
  });
});
