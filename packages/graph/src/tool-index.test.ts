import { describe, expect, it } from 'vitest';
import { foldTerm, ToolIndex } from './tool-index.js';

const tools = [
  {
    name: 'create_directory',
    description: 'Create a directory and any missing parents.',
    skill: 'Filesystem',
  },
  {
    name: 'duckduckgo_search',
    description: 'Search the web and return the top results.',
    skill: 'DuckDuckGo',
  },
  { name: 'gitCommit', description: 'Record the staged changes.', skill: 'git', tags: ['vcs'] },
];

describe('ToolIndex', () => {
  it('folds words the same way for tools and queries: lowercase, stemmed, stop words out', () => {
    expect(foldTerm('Commits')).toBe(foldTerm('commit'));
    expect(foldTerm('scheduling')).toBe(foldTerm('schedule'));
    expect(foldTerm('the')).toBeNull();
    expect(foldTerm('a')).toBeNull();
  });

  it('matches snake_case and camelCase names word by word, and related words of the query', () => {
    const index = new ToolIndex(tools);
    const all = () => true;
    expect(index.search('commit', all, 5)[0]?.name).toBe('gitCommit');
    expect(index.search('vcs', all, 5)[0]?.name).toBe('gitCommit');
    // "folder" is not in any tool text; its related word "directory" is.
    expect(index.search('make a folder', all, 5)[0]?.name).toBe('create_directory');
    expect(index.search('look it up online', all, 5)[0]?.name).toBe('duckduckgo_search');
  });

  it('answers only among the allowed names, and adds a tool once', () => {
    const index = new ToolIndex(tools);
    expect(index.search('search the web', (name) => name !== 'duckduckgo_search', 5)).toEqual([]);
    index.add([
      { name: 'duckduckgo_search', description: 'something else entirely' },
      { name: 'web_fetch', description: 'Fetch a web page' },
    ]);
    expect(index.has('web_fetch')).toBe(true);
    // The first text of a name stays: the second duckduckgo_search was not added.
    const names = index.search('web', () => true, 5).map((h) => h.name);
    expect(names.sort()).toEqual(['duckduckgo_search', 'web_fetch']);
    expect(index.search('something else entirely', () => true, 5)).toEqual([]);
  });
});
