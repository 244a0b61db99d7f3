/** The newest renderings kept: a message reaches its recipients' polls within seconds of each other. */
const KEPT = 256;
const texts = new Map<string, string>();

/**
 * A message event's `message` (without the recipient's flags) as JSON text,
 * written once per message and rendering (`key`: realm, message, the queue's
 * format) and shared by every poll that returns it: a message to ten
 * thousand people was rendered and written ten thousand times. A message
 * event is made once, at sending, so the same key always stands for the
 * same text. Without a key (a restricted guest's view) it is written anew.
 */
export function messageText(key: string | undefined, render: () => unknown): string {
  if (key === undefined) return JSON.stringify(render());
  let text = texts.get(key);
  if (text === undefined) {
    text = JSON.stringify(render());
    if (texts.size >= KEPT) texts.delete(texts.keys().next().value!);
    texts.set(key, text);
  }
  return text;
}
