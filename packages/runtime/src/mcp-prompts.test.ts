import type { McpPromptInfo } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { isPromptArgumentsError, parsePromptArguments, promptUsage } from './mcp-prompts.js';

const args: McpPromptInfo = {
  server: 'everything',
  name: 'args-prompt',
  arguments: [
    { name: 'city', required: true },
    { name: 'state', required: false },
  ],
  completions: false,
};
const one: McpPromptInfo = { ...args, name: 'one', arguments: [{ name: 'topic', required: true }] };

describe('prompt command arguments', () => {
  it('reads name=value words, quoted values with blanks, and a lone argument given as plain text', () => {
    expect(parsePromptArguments(args, 'city=Paris state=TX')).toEqual({ city: 'Paris', state: 'TX' });
    expect(parsePromptArguments(args, `city="New York"  state='N Y'`)).toEqual({
      city: 'New York',
      state: 'N Y',
    });
    expect(parsePromptArguments(args, 'city="say \\"hi\\""')).toEqual({ city: 'say "hi"' });
    expect(parsePromptArguments(one, 'the whole text')).toEqual({ topic: 'the whole text' });
    expect(parsePromptArguments(one, 'topic=x')).toEqual({ topic: 'x' });
  });

  it('refuses an unknown name, a missing required one and a word that is not name=value, with the usage', () => {
    expect(promptUsage(args)).toBe('/everything:args-prompt city=… [state=…]');
    const fail = (text: string) => {
      try {
        parsePromptArguments(args, text);
      } catch (error) {
        expect(isPromptArgumentsError(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(fail('city=Paris country=FR')).toBe(
      '/everything:args-prompt takes no argument country. Usage: /everything:args-prompt city=… [state=…]',
    );
    expect(fail('state=TX')).toBe(
      '/everything:args-prompt needs city. Usage: /everything:args-prompt city=… [state=…]',
    );
    expect(fail('Paris')).toBe(
      'Arguments are name=value words; got "Paris". Usage: /everything:args-prompt city=… [state=…]',
    );
  });
});
