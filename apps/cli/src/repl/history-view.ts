import type { BaseMessage } from '@langchain/core/messages';
import type { ReplState } from './state.js';

export { formatHistory } from '../history.js';

export async function readHistoryOf(state: ReplState): Promise<BaseMessage[]> {
  return (await state.rt.agent.getState(state.session.id)).messages;
}
