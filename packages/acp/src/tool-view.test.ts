import { describe, expect, it } from 'vitest';
import { toolKind, toolLocations, toolTitle } from './tool-view.js';

describe('how a birdie tool looks in the editor', () => {
  it('gets a kind from its name', () => {
    expect(
      [
        'read_file',
        'list_dir',
        'search_files',
        'write_file',
        'append_file',
        'create_directory',
        'run_bash',
        'http_get',
        'todo_create_plan',
        'load_skill',
        'delete_branch',
        'count_words',
      ].map(toolKind),
    ).toEqual([
      'read',
      'read',
      'search',
      'edit',
      'edit',
      'edit',
      'execute',
      'fetch',
      'think',
      'read',
      'delete',
      'other',
    ]);
  });

  it('is titled by the argument it works on, and locates the file it names', () => {
    expect(toolTitle('run_bash', { command: 'ls  -la\n' })).toBe('run_bash ls -la');
    expect(toolTitle('todo_show_plan', {})).toBe('todo_show_plan');
    expect(toolLocations({ path: 'src/a.ts', start_line: 4 }, '/work')).toEqual([
      { path: '/work/src/a.ts', line: 4 },
    ]);
    expect(toolLocations({ command: 'ls' }, '/work')).toEqual([]);
  });
});
