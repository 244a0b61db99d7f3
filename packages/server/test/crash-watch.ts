import { ChatClient } from '@chat/testkit';
import type { Writer, World } from './crash-world.js';

type Events = { events?: Array<{ id: number; type: string; message?: { id: number } }>; code?: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client of one writer holding an event queue through the crash loop, as
 * a real client does. Queues live in memory: after kill -9 its queue must be
 * gone (BAD_EVENT_QUEUE_ID, never a queue that goes on from an older state),
 * the client registers again and the new snapshot holds every acknowledged
 * message it can see; after a graceful restart the queue goes on exactly.
 * While a queue lives, its event ids follow each other and no message comes twice.
 */
export class Watcher {
  private queueId = '';
  private cursor = -1;
  /** The snapshot's newest message: later ones must come as events. */
  private maxId = -1;
  private seen = new Set<number>();
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Queues found gone after a kill, and found going on after a graceful restart. */
  gone = 0;
  continued = 0;
  /** Message events taken, over all its queues. */
  messages = 0;

  constructor(
    private readonly world: World,
    private readonly writer: Writer,
  ) {}

  private client(url: string): ChatClient {
    return new ChatClient(url, { email: this.writer.email, apiKey: this.writer.apiKey });
  }

  private violation(text: string): void {
    this.world.ledger.violation(`watcher ${this.writer.name} (round ${this.world.round}): ${text}`);
  }

  /** Acknowledged messages this writer can see: channel ones and its own direct ones. */
  private visible(): number[] {
    const ids: number[] = [];
    for (const m of this.world.ledger.messages.values()) {
      if (m.id === undefined || (m.fate !== 'acked' && m.fate !== 'seen')) continue;
      if (m.conversation === 'channel' || m.conversation.includes(this.writer.id)) ids.push(m.id);
    }
    return ids;
  }

  async register(url: string): Promise<void> {
    const reply = await this.client(url).post<{ queue_id: string; last_event_id: number; max_message_id: number }>(
      '/register',
      { event_types: JSON.stringify(['message']) },
    );
    if (reply.status !== 200) throw new Error(`register: ${reply.status} ${JSON.stringify(reply.body)}`);
    ({ queue_id: this.queueId, last_event_id: this.cursor, max_message_id: this.maxId } = reply.body);
    this.seen = new Set();
    for (const id of this.visible())
      if (id > this.maxId)
        this.violation(`acknowledged message ${id} missing from the new snapshot (max ${this.maxId})`);
  }

  /** Takes one answer of the queue: ids follow the cursor, no message twice. */
  private take(events: NonNullable<Events['events']>): void {
    for (const event of events) {
      if (event.id !== this.cursor + 1)
        this.violation(`queue ${this.queueId} went from event ${this.cursor} to ${event.id}: events missing`);
      this.cursor = Math.max(this.cursor, event.id);
      const id = event.message?.id;
      if (event.type !== 'message' || id === undefined) continue;
      if (this.seen.has(id)) this.violation(`queue ${this.queueId}: message ${id} came twice`);
      this.seen.add(id);
      this.messages++;
    }
  }

  private async poll(url: string, dontBlock: boolean) {
    const params = { queue_id: this.queueId, last_event_id: this.cursor, dont_block: dontBlock };
    return this.client(url).get<Events>('/events', params);
  }

  /** Long-polls until `stop()` or the server goes away. */
  start(url: string): void {
    this.stopped = false;
    this.running = (async () => {
      while (!this.stopped) {
        const reply = await this.poll(url, false).catch(() => undefined);
        if (!reply || reply.status !== 200) return;
        this.take(reply.body.events ?? []);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** After kill -9: the queue is gone, and the client registers again. */
  async afterKill(url: string): Promise<void> {
    const reply = await this.poll(url, true);
    if (reply.status === 200) this.violation(`queue ${this.queueId} went on after kill -9, from a state not at rest`);
    else if (reply.body.code !== 'BAD_EVENT_QUEUE_ID')
      throw new Error(`poll after the kill: ${reply.status} ${JSON.stringify(reply.body)}`);
    else this.gone++;
    await this.register(url);
  }

  /** After a graceful restart: the queue goes on, and every message acknowledged since it was registered comes, once. */
  async afterStop(url: string): Promise<void> {
    const owed = () => this.visible().filter((id) => id > this.maxId && !this.seen.has(id));
    for (let i = 0; i < 50 && (i === 0 || owed().length > 0); i++) {
      if (i > 0) await sleep(200);
      const reply = await this.poll(url, true);
      if (reply.status !== 200) {
        this.violation(`queue ${this.queueId} lost in a graceful restart: ${reply.status} ${reply.body.code}`);
        return;
      }
      this.take(reply.body.events ?? []);
    }
    this.continued++;
    for (const id of owed()) this.violation(`acknowledged message ${id} missing from queue ${this.queueId}`);
  }
}
