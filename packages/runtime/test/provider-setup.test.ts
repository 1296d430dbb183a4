import { VENDORS } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import { baseUrlProblem, baseUrlQuestion, keyOptional, keyQuestion } from '../src/provider-setup.js';

describe("setup's questions about the provider", () => {
  it('asks Azure its endpoint, Ollama its server (offering the local one), others an optional base URL', () => {
    expect(baseUrlQuestion('azure', VENDORS.azure)?.message).toBe(
      'Endpoint (https://<resource>.openai.azure.com)',
    );
    expect(baseUrlQuestion('ollama', VENDORS.ollama)).toEqual({
      message: 'Server URL',
      placeholder: 'http://127.0.0.1:11434',
      defaultValue: 'http://127.0.0.1:11434',
    });
    expect(baseUrlQuestion('openai', VENDORS.openai)?.message).toBe(
      'Base URL (empty: https://api.openai.com/v1; a local OpenAI-compatible server: e.g. http://127.0.0.1:8080/v1)',
    );
    expect(baseUrlQuestion('scripted', VENDORS.scripted)).toBeUndefined();
  });

  it('accepts an empty or http(s) base URL without credentials in it', () => {
    expect(baseUrlProblem('')).toBeUndefined();
    expect(baseUrlProblem(' http://127.0.0.1:8080/v1 ')).toBeUndefined();
    expect(baseUrlProblem('localhost:8080')).toBe('must start with http:// or https://');
    expect(baseUrlProblem('not a url')).toBe('not a URL (e.g. http://127.0.0.1:8080/v1)');
    expect(baseUrlProblem('https://me:secret@example.com')).toBe(
      'must not hold a user name or password (the key is asked next)',
    );
  });

  it('lets a keyless vendor and openai at a server of its own go without a key', () => {
    expect(keyOptional('ollama', VENDORS.ollama, undefined)).toBe(true);
    expect(keyOptional('openai', VENDORS.openai, undefined)).toBe(false);
    expect(keyOptional('openai', VENDORS.openai, 'http://127.0.0.1:8080/v1')).toBe(true);
    expect(keyOptional('anthropic', VENDORS.anthropic, 'http://127.0.0.1:8080')).toBe(false);
  });

  it('asks for a key that is needed, and takes an empty answer when the environment has one', () => {
    const needed = keyQuestion('anthropic', VENDORS.anthropic, {}, undefined);
    expect(needed.message).toBe('API key (ANTHROPIC_API_KEY is not set, so one is needed)');
    expect(needed.validate('')).toBe('a key is required: ANTHROPIC_API_KEY is not set');
    expect(needed.validate('sk-x')).toBeUndefined();
    const fromEnv = keyQuestion('anthropic', VENDORS.anthropic, { ANTHROPIC_API_KEY: 'k' }, undefined);
    expect(fromEnv).toMatchObject({
      fromEnv: 'ANTHROPIC_API_KEY',
      message: 'API key (leave empty to use ANTHROPIC_API_KEY from the environment)',
    });
    expect(fromEnv.validate('')).toBeUndefined();
    const local = keyQuestion('openai', VENDORS.openai, {}, 'http://127.0.0.1:8080/v1');
    expect(local.message).toBe('API key (leave empty for a server that needs none)');
    expect(local.validate(undefined)).toBeUndefined();
  });
});
