/** The newest renderings kept per realm: a message reaches its recipients' polls within seconds of each other. */
const KEPT = 256;
/** The realms whose renderings are kept; past it, the realm that began keeping longest ago is dropped. */
const KEPT_REALMS = 1000;

/**
 * A message event's `message` (without the recipient's flags) as JSON text,
 * written once per message and rendering and shared by every poll that
 * returns it: a message to ten thousand people was rendered and written ten
 * thousand times. Kept per realm by the edge's event routes (`eventRoutes`,
 * beside the queues' specs), so two servers in one process (tests) never
 * share one, and a busy realm does not push out another's. A message event
 * is made once, at sending, so the same key (the message, the queue's
 * format) always stands for the same text.
 */
export class MessageTexts {
  private readonly realms = new Map<string, Map<string, string>>();

  /** The text for `key` in `realm`, rendered when not kept; without a key (a restricted guest's view) written anew. */
  text(realm: string, key: string | undefined, render: () => unknown): string {
    if (key === undefined) return JSON.stringify(render());
    let texts = this.realms.get(realm);
    if (!texts) {
      if (this.realms.size >= KEPT_REALMS) this.realms.delete(this.realms.keys().next().value!);
      texts = new Map();
      this.realms.set(realm, texts);
    }
    let text = texts.get(key);
    if (text === undefined) {
      text = JSON.stringify(render());
      if (texts.size >= KEPT) texts.delete(texts.keys().next().value!);
      texts.set(key, text);
    }
    return text;
  }
}
