import { describe, expect, it } from 'vitest';
import { checkListSetting, checkSettingKey, parseSettingValue } from './settings-file.js';

describe('settings as typed', () => {
  it('parses lists (comma-separated or JSON), numbers and the sandbox network flag', () => {
    expect(parseSettingValue('skills.enable', 'a, b,,c')).toEqual(['a', 'b', 'c']);
    expect(parseSettingValue('skills.enable', '["a,b"]')).toEqual(['a,b']);
    expect(parseSettingValue('context_window', '8000')).toBe(8000);
    expect(parseSettingValue('context_window', 'lots')).toBe('lots'); // left for the schema check to name
    expect(parseSettingValue('serve.sandbox.network', 'false')).toBe(false);
    expect(parseSettingValue('approval', 'never')).toBe('never');
  });

  it('names the closest setting for a typo, and only lists take add/remove', () => {
    expect(checkSettingKey('approval')).toBe('approval');
    expect(() => checkSettingKey('aproval')).toThrow(/unknown setting "aproval"\. Did you mean "approval"\?/);
    expect(() => checkListSetting('permissions.allow')).not.toThrow();
    expect(() => checkListSetting('approval')).toThrow('approval is not a list: use birdie config set');
  });
});
