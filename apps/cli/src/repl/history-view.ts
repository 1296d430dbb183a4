import { type History, historyOf } from '../history.js';
import type { ReplState } from './state.js';

export { formatHistory } from '../history.js';

export async function readHistoryOf(state: ReplState): Promise<History> {
  return historyOf(state.rt.agent, state.session.id);
}
