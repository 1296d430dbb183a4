import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** `~/.birdie`, or `$BIRDIE_HOME` (tests point it at a temp dir so nothing touches the real home). */
export function birdieHome(env: NodeJS.ProcessEnv): string {
  return env.BIRDIE_HOME ? resolve(env.BIRDIE_HOME) : join(userHome(env), '.birdie');
}

export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

export function configFile(env: NodeJS.ProcessEnv): string {
  return join(birdieHome(env), 'config.json');
}

/** `~/.birdie/integrations`: an npm project of LangChain integrations the user added (the `langchain` vendor). */
export function integrationsDir(env: NodeJS.ProcessEnv): string {
  return join(birdieHome(env), 'integrations');
}

export function userSkillsDir(env: NodeJS.ProcessEnv): string {
  return join(birdieHome(env), 'skills');
}

export function userAgentsDir(env: NodeJS.ProcessEnv): string {
  return join(birdieHome(env), 'agents');
}

export function resolveFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
