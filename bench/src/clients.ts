import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Options } from './config/args.js';
import { isRefusal, type Answer, type Http } from './http.js';
import type { BenchUser } from './setup.js';
import { Latency } from './stats.js';
import { sleep } from './util.js';

/** Deliveries expected and seen for the messages of one step (or one fanout). */
export class DeliveryTally {
  expected = 0;
  received = 0;
  readonly latency = new Latency();
  /** performance.now() of the newest delivery. */
  last = 0;
}

interface Pending {
  start: number;
  sender: number;
  tally: DeliveryTally;
}

/**
 * Matches what recipients' polls return to the sends that caused it. Each
 * message carries a nonce (`nonce-<run>-<seq>`) in its content, so a
 * delivery counts even when it arrives before the send's reply (which it
 * often does); the latency is from the send's intended start to the end of
 * the poll that brought it.
 */
export class Deliveries {
  readonly run = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly pattern = new RegExp(`nonce-${this.run}-(\\d+)`);

  /** The content of a new message; its deliveries are counted in `tally`. */
  expect(start: number, sender: number, expected: number, tally: DeliveryTally): { seq: number; content: string } {
    const seq = this.seq++;
    this.pending.set(seq, { start, sender, tally });
    tally.expected += expected;
    return { seq, content: `Load test message nonce-${this.run}-${seq} :wave:` };
  }

  /** A send that failed: nothing of it will arrive. */
  cancel(seq: number, expected: number): void {
    const pending = this.pending.get(seq);
    if (pending) pending.tally.expected -= expected;
    this.pending.delete(seq);
  }

  seen(content: string, recipient: number, at: number): void {
    const match = this.pattern.exec(content);
    const pending = match ? this.pending.get(Number(match[1])) : undefined;
    if (!pending || pending.sender === recipient) return;
    pending.tally.received++;
    pending.tally.latency.recordMs(at - pending.start);
    pending.tally.last = Math.max(pending.tally.last, at);
  }

  /** Stops matching the messages of a finished tally, so late deliveries do not count twice. */
  forget(tally: DeliveryTally): void {
    for (const [seq, pending] of this.pending) if (pending.tally === tally) this.pending.delete(seq);
  }
}

/** What the simulated clients register for: a full client, or a client that only listens for messages. */
export function registerParams(eventTypes: Options['eventTypes']): Record<string, unknown> {
  const common = { apply_markdown: true, client_gravatar: true, slim_presence: true };
  if (eventTypes === 'messages') return { ...common, event_types: ['message'] };
  return {
    ...common,
    client_capabilities: {
      notification_settings_null: true,
      bulk_message_deletion: true,
      user_avatar_url_field_optional: true,
      stream_typing_notifications: true,
      user_settings_object: true,
      empty_topic_name: true,
      simplified_presence_events: true,
    },
  };
}

/** Counters shared by every client of a run. */
export class PollStats {
  polls = 0;
  errors = 0;
  /** Polls refused (503 or 429): the client waits as long as Retry-After says before polling again. */
  refused = 0;
  /** Registrations refused for load, and tried again. */
  registersRefused = 0;
  queuesLost = 0;
  /** Events (heartbeats aside) the polls brought: what the server delivered to the queues. */
  events = 0;
  /** performance.now() of the last poll that brought events: quiet queues mean a settled server. */
  lastEventAt = 0;
  errorSamples: string[] = [];
}

/**
 * One simulated client: registers a queue, then long-polls it in a loop as
 * the original's clients do, acknowledging with last_event_id; a collected
 * queue is registered again, as clients answer BAD_EVENT_QUEUE_ID.
 */
export class LiveClient {
  queueId = '';
  private lastEventId = -1;
  private running = false;
  private presenceId = -1;
  /** Message ids this client received lately: what it reacts to and marks read. */
  readonly recent: number[] = [];

  constructor(
    readonly user: BenchUser,
    private readonly http: Http,
    private readonly deliveries: Deliveries,
    private readonly params: Record<string, unknown>,
    private readonly stats: PollStats,
  ) {}

  /** Refused for load (503/429), it registers again after what Retry-After says, as Zulip's clients do (5 tries). */
  async register(): Promise<Answer> {
    let answer = await this.http.request('POST', '/register', this.params, this.user, 120_000);
    for (let tries = 1; tries < 5 && isRefusal(answer); tries++) {
      this.stats.registersRefused++;
      await sleep(retryDelayMs(answer));
      answer = await this.http.request('POST', '/register', this.params, this.user, 120_000);
    }
    if (answer.status === 200) {
      this.queueId = answer.body.queue_id as string;
      this.lastEventId = answer.body.last_event_id as number;
      // As the web app: its presence reports ask for what changed since the snapshot it loaded with.
      const presenceId = answer.body.presence_last_update_id;
      if (typeof presenceId === 'number') this.presenceId = presenceId;
    }
    return answer;
  }

  start(): void {
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
  }

  /**
   * POST /users/me/presence as the web app sends it: every minute for what changed since its last (`last_update_id`),
   * and once at page load with `pingOnly` (the snapshot it loaded with already has everyone's); `retries` times
   * again when refused for load.
   */
  async ping(retries = 0, pingOnly = false): Promise<Answer> {
    let answer = await this.pingOnce(pingOnly);
    for (let tries = 0; tries < retries && isRefusal(answer); tries++) {
      await sleep(retryDelayMs(answer));
      answer = await this.pingOnce(pingOnly);
    }
    return answer;
  }

  private async pingOnce(pingOnly: boolean): Promise<Answer> {
    const params: Record<string, unknown> = pingOnly
      ? { status: 'active', ping_only: true }
      : { status: 'active', slim_presence: true, last_update_id: this.presenceId };
    const answer = await this.http.request('POST', '/users/me/presence', params, this.user);
    if (answer.status === 200 && typeof answer.body.presence_last_update_id === 'number') {
      this.presenceId = answer.body.presence_last_update_id;
    }
    return answer;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const params = { queue_id: this.queueId, last_event_id: this.lastEventId };
      // Longer than the server's heartbeat (60 s by default), which answers a waiting poll.
      const answer = await this.http.request('GET', '/events', params, this.user, 180_000);
      if (!this.running) return;
      this.stats.polls++;
      if (answer.status !== 200) {
        this.stats.errors++;
        if (this.stats.errorSamples.length < 5)
          this.stats.errorSamples.push(`GET /events: ${answer.status} ${answer.body.msg}`);
        if (answer.body.code === 'BAD_EVENT_QUEUE_ID') {
          this.stats.queuesLost++;
          // Not in a tight loop against a server that refuses registrations too.
          if ((await this.register()).status !== 200) await sleep(1000);
        } else {
          if (isRefusal(answer)) this.stats.refused++;
          await sleep(retryDelayMs(answer));
        }
        continue;
      }
      const at = answer.end;
      const events = answer.body.events as Array<Record<string, unknown>>;
      for (const event of events) {
        this.lastEventId = Math.max(this.lastEventId, event.id as number);
        if (event.type === 'heartbeat') continue;
        this.stats.events++;
        this.stats.lastEventAt = at;
        if (event.type !== 'message') continue;
        const message = event.message as { id: number; content: string };
        this.deliveries.seen(message.content, this.user.index, at);
        this.recent.push(message.id);
        if (this.recent.length > 20) this.recent.shift();
      }
    }
  }
}

export const now = () => performance.now();

/** What the server asked (Retry-After, in seconds, up to a minute) or a second, as Zulip's clients wait. */
export function retryDelayMs(answer: Answer): number {
  const seconds = Number(answer.retryAfter);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(60, seconds) * 1000 : 1000;
}
