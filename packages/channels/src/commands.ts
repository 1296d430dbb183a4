import { isModelSpec } from '@birdie/runtime/model-spec';
import { operatorPolicy } from '@birdie/runtime/operator-policy';
import type { ServeSetup } from '@birdie/runtime/server-runtime';
import { applySkillFlags } from '@birdie/runtime/skill-flags';
import type { Session } from '@birdie/store';
import type { ChatPlace } from './chat.js';
import type { ChatEntry } from './chat-book.js';

/** What the commands use of the channel's core (declared here, so that the core may import the commands). */
export interface CommandHost {
  readonly options: { readonly setup: Pick<ServeSetup, 'rt' | 'approval'> };
  say(place: ChatPlace, markdown: string): Promise<void>;
  sessionFor(key: string, user: string, fresh?: boolean): Promise<{ entry: ChatEntry; session: Session }>;
  setModel(key: string, entry: ChatEntry, model: string | undefined): Promise<void>;
}

export const HELP = [
  'Talk to me, or use:',
  '/new: start a new session',
  '/skills: the skills you may use, and those on in this session',
  '/enable NAME: turn a skill on in this session',
  '/model [NAME]: show or choose the model (a tier such as fast, or vendor:model; /model default resets it)',
  '/cancel: stop the running answer, or drop a waiting approval',
].join('\n');

/** The chat commands (`/cancel` is handled at once by the core: it must not wait behind the turn it stops). */
export async function runCommand(
  core: CommandHost,
  place: ChatPlace,
  key: string,
  entry: ChatEntry,
  name: string,
  arg: string,
): Promise<void> {
  const { rt, approval } = core.options.setup;
  switch (name.toLowerCase()) {
    case 'start':
    case 'help':
      return core.say(place, HELP);
    case 'new': {
      const { session } = await core.sessionFor(key, entry.userId, true);
      return core.say(place, `New session \`${session.id}\`.`);
    }
    case 'skills': {
      const { session } = await core.sessionFor(key, entry.userId);
      const grants = await rt.store.grants.get(session.id, session.userId);
      const on = new Set(grants.enabled.map((n) => n.toLowerCase()));
      const listing = operatorPolicy(rt.config.settings).listing(rt.registry.current(), approval);
      if (listing.length === 0) return core.say(place, 'No skills are available here.');
      const lines = listing.map(
        (s) =>
          `${on.has(s.name.toLowerCase()) || s.enabledByDefault ? '✅' : '▫️'} **${s.name}**: ${s.description}`,
      );
      return core.say(place, `${lines.join('\n')}\n\n/enable NAME turns one on.`);
    }
    case 'enable': {
      if (arg === '') return core.say(place, 'Usage: /enable NAME (see /skills).');
      const snapshot = rt.registry.current();
      const skill = snapshot.getSkill(arg);
      if (!skill) {
        const [near] = snapshot.suggest(arg, 1);
        return core.say(place, `No skill "${arg}".${near ? ` Did you mean "${near}"?` : ''}`);
      }
      const refusal = operatorPolicy(rt.config.settings).skillRefusal(skill, snapshot);
      if (refusal) return core.say(place, `You can't enable ${skill.name}: ${refusal}.`);
      const { session } = await core.sessionFor(key, entry.userId);
      await rt.loadGrants(session.id, session.userId);
      await applySkillFlags(rt, session, { enable: [skill.name], disable: [] });
      return core.say(place, `Enabled **${skill.name}** in this session.`);
    }
    case 'model': {
      if (arg === '') return core.say(place, `Model: \`${entry.model ?? rt.modelName}\`.`);
      if (arg === 'default') {
        await core.setModel(key, entry, undefined);
        return core.say(place, `Model: \`${rt.modelName}\` (the default).`);
      }
      if (!isModelSpec(arg))
        return core.say(
          place,
          'Name a tier (fast, default, strong) or vendor:model (e.g. openai:gpt-4o-mini).',
        );
      // Resolved now, as the REPL's /model does: an unknown vendor, a tier no provider section defines or a missing
      // key is said when it is chosen, not by every later turn failing.
      const problem = await rt.resolveModel(arg).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      if (problem !== undefined) return core.say(place, `Can't use \`${arg}\`: ${problem}`);
      await core.setModel(key, entry, arg);
      return core.say(place, `Model: \`${arg}\`.`);
    }
    default:
      return core.say(place, `No command /${name}.\n\n${HELP}`);
  }
}
