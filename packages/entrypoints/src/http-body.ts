import { capText } from './output-cap.js';

export interface ResponseText {
  text: string;
  truncated: boolean;
}

/** Reads at most `limit` bytes and cancels the rest, so a huge response costs neither memory nor bandwidth. */
export async function readCapped(response: Response, limit: number): Promise<ResponseText> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!truncated) return { text, truncated };
  const length = response.headers.get('content-length');
  const note = length ? ` of ${length}` : '';
  return {
    text: `${text.replace(/\uFFFD$/, '')}\n[… response truncated after ${limit}${note} bytes …]`,
    truncated,
  };
}

/** JSON is re-indented for the model; anything else passes through. */
export function formatBody(body: ResponseText, contentType: string | null, limit: number): ResponseText {
  if (body.truncated || !/[/+]json\b/i.test(contentType ?? '')) return body;
  try {
    const pretty = JSON.stringify(JSON.parse(body.text), null, 2);
    return capText(pretty, limit);
  } catch {
    return body;
  }
}
