import { expect, it } from 'vitest';
import * as api from '../src/index.js';

it('exports exactly its public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'ChannelCore',
    'ChannelError',
    'ChatBook',
    'HELP',
    'REFUSAL',
    'StreamedReply',
    'TaskReports',
    'approvalButtons',
    'approvalText',
    'channelSecrets',
    'isChannelError',
    'placeOfKey',
    'pressedDecision',
    'safeFileName',
    'saveFiles',
    'scrubbed',
    'splitMarkdown',
    'startChannels',
    'startSlack',
    'startTelegram',
    'toSlack',
    'toTelegram',
    'transcriberOf',
  ]);
});
