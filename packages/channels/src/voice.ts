import type { ResolvedProviderConfig } from '@birdie/providers';
import type { ChannelsSettings } from '@birdie/runtime/settings';

/** Vendors whose API has an OpenAI-compatible `/audio/transcriptions`, and its default address. */
const TRANSCRIBING_VENDORS: Record<string, string> = { openai: 'https://api.openai.com/v1' };

export interface Transcriber {
  transcribe(audio: Uint8Array, mime: string, fileName: string): Promise<string>;
}

/**
 * The configured vendor's `/audio/transcriptions` (or `channels.voice.base_url`), with the provider's key (or
 * `BIRDIE_VOICE_API_KEY`); undefined when there is none: voice messages then get a reply saying so.
 */
export function transcriberOf(
  settings: ChannelsSettings,
  provider: ResolvedProviderConfig['config'],
  env: NodeJS.ProcessEnv,
): Transcriber | undefined {
  const vendorUrl = TRANSCRIBING_VENDORS[provider.vendor];
  const base = settings.voice?.base_url ?? (vendorUrl ? (provider.base_url ?? vendorUrl) : undefined);
  if (!base) return undefined;
  const key = env.BIRDIE_VOICE_API_KEY ?? (vendorUrl ? provider.api_key : undefined);
  const model = settings.voice?.model ?? 'whisper-1';
  const url = `${base.replace(/\/+$/, '')}/audio/transcriptions`;
  return {
    async transcribe(audio, mime, fileName) {
      const form = new FormData();
      form.set('file', new Blob([audio], { type: mime }), fileName);
      form.set('model', model);
      const response = await fetch(url, {
        method: 'POST',
        body: form,
        ...(key ? { headers: { authorization: `Bearer ${key}` } } : {}),
        signal: AbortSignal.timeout(120_000),
      });
      if (!response.ok) throw new Error(`the transcription service answered ${response.status}`);
      const body = (await response.json()) as { text?: unknown };
      if (typeof body.text !== 'string') throw new Error('the transcription service sent no text');
      return body.text;
    },
  };
}
