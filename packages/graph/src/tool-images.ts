import type { ToolImage } from '@birdie/entrypoints';
import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

/**
 * Images that tools return (`read_file` of a picture) travel in their ToolMessage's `artifact`, which LangChain
 * never sends to a model; the message's text names them (path, type, size) for every model. Just before a model
 * call, a model that can see images (its profile's `imageInputs`) gets them as image blocks in a user message right
 * after the tool results of the latest round: vendors differ on images inside a tool result (OpenAI's chat API
 * refuses them there), and all of them take images from the user. Older rounds are not re-sent: their text still
 * names what was seen, and each image would cost its tokens on every later call.
 */
const ARTIFACT_KEY = 'birdieImages';

/** The artifact a ToolMessage carries its images in. */
export function toolImagesArtifact(images: readonly ToolImage[]): Record<string, unknown> {
  return { [ARTIFACT_KEY]: images.map(({ mimeType, data }) => ({ mimeType, data })) };
}

function imagesOf(message: BaseMessage): ToolImage[] {
  if (!ToolMessage.isInstance(message)) return [];
  const list = (message.artifact as Record<string, unknown> | undefined)?.[ARTIFACT_KEY];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (image): image is ToolImage =>
      typeof (image as ToolImage | null)?.mimeType === 'string' &&
      typeof (image as ToolImage).data === 'string',
  );
}

/**
 * The messages as sent to a model: unchanged unless the model sees images and the last messages are tool results
 * with images, which then follow them in one user message (the call ids say which result each image belongs to).
 */
export function withToolImages(messages: readonly BaseMessage[], seesImages: boolean): BaseMessage[] {
  if (!seesImages) return [...messages];
  let start = messages.length;
  while (start > 0 && ToolMessage.isInstance(messages[start - 1])) start -= 1;
  const blocks: Array<Record<string, unknown>> = [];
  for (const message of messages.slice(start)) {
    const images = imagesOf(message);
    if (images.length === 0) continue;
    const call = (message as ToolMessage).tool_call_id;
    blocks.push({
      type: 'text',
      text: `The image${images.length === 1 ? '' : 's'} returned by tool call ${call}:`,
    });
    // The data-URL form is the one every vendor integration converts (the v1 `image` block reaches OpenAI's chat API
    // unconverted, and a `source_type` block reaches Anthropic twice).
    for (const image of images)
      blocks.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
  }
  if (blocks.length === 0) return [...messages];
  return [...messages, new HumanMessage({ content: blocks as never })];
}
