import { describe, expect, it } from 'vitest';
import { makeSkill } from '../test/helpers.js';
import { snapshotFromSkills } from './snapshot.js';

const names = (skills: ReadonlyArray<{ name: string }>) => skills.map((skill) => skill.name);

describe('matchTriggers', () => {
  const snapshot = snapshotFromSkills([
    makeSkill('ssh-help', { triggers: ['ssh'] }),
    makeSkill('docker', { triggers: ['Docker Compose', 'container'] }),
    makeSkill('deploy', { triggers: ['deploy', 'release'] }),
    makeSkill('cpp', { triggers: ['c++'] }),
    makeSkill('go', { triggers: ['go'] }),
  ]);
  const all = names(snapshot.skills);

  it('matches case-insensitively and returns skills in snapshot (name) order', () => {
    expect(names(snapshot.matchTriggers('Please RELEASE it, then check the CONTAINER', all))).toEqual([
      'deploy',
      'docker',
    ]);
  });

  it('matches long triggers as substrings, as the original did', () => {
    expect(names(snapshot.matchTriggers('redeployment tomorrow', all))).toEqual(['deploy']);
    expect(names(snapshot.matchTriggers('containers everywhere', all))).toEqual(['docker']);
  });

  it('matches triggers of 3 characters or fewer only as whole words', () => {
    expect(names(snapshot.matchTriggers('restart sshd now', all))).toEqual([]);
    expect(names(snapshot.matchTriggers('open an ssh tunnel', all))).toEqual(['ssh-help']);
    expect(names(snapshot.matchTriggers('ssh', all))).toEqual(['ssh-help']);
    expect(names(snapshot.matchTriggers('(ssh)', all))).toEqual(['ssh-help']);
    expect(names(snapshot.matchTriggers('ssh_config', all))).toEqual([]);
    expect(names(snapshot.matchTriggers('let us go', all))).toEqual(['go']);
    expect(names(snapshot.matchTriggers('a good day', all))).toEqual([]);
  });

  it('only checks the boundary on a side where the trigger itself ends in a word character', () => {
    expect(names(snapshot.matchTriggers('modern c++17 code', all))).toEqual(['cpp']);
    expect(names(snapshot.matchTriggers('objc++ code', all))).toEqual([]);
  });

  it('treats any run of whitespace as one space, in triggers and messages', () => {
    expect(names(snapshot.matchTriggers('set up docker\n\t  compose', all))).toEqual(['docker']);
  });

  it('returns only allowed skills, named exactly or case-insensitively', () => {
    const message = 'deploy the container over ssh';
    expect(names(snapshot.matchTriggers(message, ['docker']))).toEqual(['docker']);
    expect(names(snapshot.matchTriggers(message, new Set(['SSH-HELP', 'unknown'])))).toEqual(['ssh-help']);
    expect(names(snapshot.matchTriggers(message, []))).toEqual([]);
  });

  it('reports each skill once however often its triggers occur', () => {
    expect(names(snapshot.matchTriggers('deploy, release, deploy again', all))).toEqual(['deploy']);
  });

  it('finds overlapping triggers and triggers that are suffixes of others', () => {
    const overlapping = snapshotFromSkills([
      makeSkill('a', { triggers: ['abcd'] }),
      makeSkill('b', { triggers: ['bc'] }),
      makeSkill('c', { triggers: ['cdef'] }),
      makeSkill('d', { triggers: ['abce'] }),
    ]);
    expect(names(overlapping.matchTriggers('xx abcdef', names(overlapping.skills)))).toEqual(['a', 'c']);
    expect(names(overlapping.matchTriggers('abcex bc', names(overlapping.skills)))).toEqual(['b', 'd']);
  });

  it('handles the classic he/she/his/hers automaton and prefixes of other triggers', () => {
    const classic = snapshotFromSkills([
      makeSkill('he', { triggers: ['hehe'] }),
      makeSkill('she', { triggers: ['sheh'] }),
      makeSkill('his', { triggers: ['hiss'] }),
      makeSkill('hers', { triggers: ['hers'] }),
      makeSkill('dock', { triggers: ['dock'] }),
      makeSkill('docker', { triggers: ['docker'] }),
    ]);
    const all = names(classic.skills);
    expect(names(classic.matchTriggers('ushers', all))).toEqual(['hers']);
    expect(names(classic.matchTriggers('shehehiss', all))).toEqual(['he', 'his', 'she']);
    expect(names(classic.matchTriggers('docke', all))).toEqual(['dock']);
    expect(names(classic.matchTriggers('dockers', all))).toEqual(['dock', 'docker']);
  });

  it('reads non-breaking and other Unicode spaces as spaces', () => {
    const spaced = snapshotFromSkills([makeSkill('compose', { triggers: ['docker compose'] })]);
    expect(names(spaced.matchTriggers('docker\u00a0compose', ['compose']))).toEqual(['compose']);
    expect(names(spaced.matchTriggers('docker\u2003\u3000compose', ['compose']))).toEqual(['compose']);
    expect(names(spaced.matchTriggers('dockercompose', ['compose']))).toEqual([]);
  });

  it('lets several skills share one trigger', () => {
    const shared = snapshotFromSkills([
      makeSkill('one', { triggers: ['kubernetes'] }),
      makeSkill('two', { triggers: ['Kubernetes', 'k8s'] }),
    ]);
    expect(names(shared.matchTriggers('kubernetes!', ['one', 'two']))).toEqual(['one', 'two']);
    expect(names(shared.matchTriggers('kubernetes!', ['two']))).toEqual(['two']);
  });

  it('ignores skills without prose to inject: tool skills, always-injected skills, empty bodies', () => {
    const mixed = snapshotFromSkills([
      makeSkill('tooling', { triggers: ['build'], tools: ['run_build'] }),
      makeSkill('always', { triggers: ['build'], alwaysInject: true, body: 'Always here.' }),
      makeSkill('tool-prose', { triggers: ['build'], tools: ['t2'], alwaysInject: true, body: 'Prose.' }),
      makeSkill('empty', { triggers: ['build'], body: '  ' }),
      makeSkill('knowledge', { triggers: ['build'] }),
      makeSkill('remote', {
        triggers: ['build'],
        mcpServer: { transport: 'sse', url: 'http://127.0.0.1:1/sse' },
      }),
    ]);
    expect(names(mixed.matchTriggers('build it', names(mixed.skills)))).toEqual(['knowledge', 'remote']);
  });

  it('ignores empty triggers and copes with messages that are empty or odd', () => {
    const odd = snapshotFromSkills([makeSkill('x', { triggers: ['', '   ', 'ünïcode'] })]);
    expect(names(odd.matchTriggers('', ['x']))).toEqual([]);
    expect(names(odd.matchTriggers('ÜNÏCODE text', ['x']))).toEqual(['x']);
    expect(names(odd.matchTriggers('\u0000\uffff\ud800', ['x']))).toEqual([]);
  });

  it('honours the wholeWord option', () => {
    const skills = [makeSkill('deploy', { triggers: ['deploy'] }), makeSkill('ssh', { triggers: ['ssh'] })];
    const always = snapshotFromSkills(skills, { triggers: { wholeWord: 'always' } });
    expect(names(always.matchTriggers('redeployment', ['deploy']))).toEqual([]);
    expect(names(always.matchTriggers('deploy now', ['deploy']))).toEqual(['deploy']);
    const never = snapshotFromSkills(skills, { triggers: { wholeWord: 'never' } });
    expect(names(never.matchTriggers('sshd', ['ssh']))).toEqual(['ssh']);
    const longer = snapshotFromSkills(skills, { triggers: { shortLength: 6 } });
    expect(names(longer.matchTriggers('redeployment', ['deploy']))).toEqual([]);
  });

  it('agrees with a plain includes/regex reference on generated input', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = 'abc d';
    const word = (length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(random() * 5)]).join('');
    const skills = Array.from({ length: 40 }, (_, i) =>
      makeSkill(`s${String(i).padStart(2, '0')}`, {
        triggers: Array.from({ length: 3 }, () => word(1 + Math.floor(random() * 5)).trim()).filter(Boolean),
      }),
    );
    const snap = snapshotFromSkills(skills);
    const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
    const reference = (message: string) =>
      skills
        .filter((skill) =>
          skill.triggers.some((trigger) => {
            const text = trigger.toLowerCase().replace(/\s+/g, ' ');
            const haystack = message.toLowerCase().replace(/\s+/g, ' ');
            for (let at = haystack.indexOf(text); at !== -1; at = haystack.indexOf(text, at + 1)) {
              if (text.length > 3) return true;
              const before = isWord(haystack[at - 1]) && isWord(text[0]);
              const after = isWord(haystack[at + text.length]) && isWord(text[text.length - 1]);
              if (!before && !after) return true;
            }
            return false;
          }),
        )
        .map((skill) => skill.name);
    for (let round = 0; round < 200; round++) {
      const message = word(40);
      expect(names(snap.matchTriggers(message, names(skills)))).toEqual(reference(message));
    }
  });
});
