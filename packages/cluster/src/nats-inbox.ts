import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';
import { NoResponders, TransportTimeout, type Logger } from '@chat/runtime';

interface Waiting {
  subject: string;
  resolve(data: Uint8Array): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Request/reply as the NATS protocol does it, done once per connection: one
 * wildcard subscription to `_INBOX.<unique>.*`, each request published with
 * the reply subject `_INBOX.<unique>.<n>`, and the reply found by its last
 * token. nats.js's `request()` does the same, but builds a `Cancelled` error
 * (with its stack) after every answered request: ~5% of an edge's CPU.
 *
 * The server answers a request nobody serves with an empty message whose
 * header status is 503 (the connection asks for it: nats.js sends `headers`
 * and `no_responders` whenever the server supports headers): `NoResponders`,
 * which tells the runtime that nobody got it. No reply in time:
 * `TransportTimeout`, after which it may have been served.
 */
export class Inbox {
  private readonly prefix: string;
  private readonly waiting = new Map<string, Waiting>();
  private readonly sub: Subscription;
  private next = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
  ) {
    this.prefix = `${createInbox()}.`;
    // nats.js subscribes again after a reconnect, as for every subscription.
    this.sub = nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => this.settle(err, msg) });
  }

  /** Requests in flight. */
  get size(): number {
    return this.waiting.size;
  }

  request(wireSubject: string, subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const token = String(this.next++);
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.waiting.delete(token);
          reject(new TransportTimeout(`no reply on ${subject} within ${timeoutMs} ms`));
        },
        Math.max(1, timeoutMs),
      );
      this.waiting.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(wireSubject, data, { reply: this.prefix + token });
      } catch (err) {
        this.drop(token)?.reject(err as Error);
      }
    });
  }

  /** Rejects every request in flight with `err`, and stops listening. */
  close(err: Error): void {
    for (const token of [...this.waiting.keys()]) this.drop(token)!.reject(err);
    if (!this.sub.isClosed()) this.sub.unsubscribe();
  }

  private settle(err: Error | null, msg: Msg): void {
    if (err) return this.log.warn({ err: err.message }, 'NATS inbox subscription error');
    const waiting = this.drop(msg.subject.slice(this.prefix.length));
    if (!waiting) return; // answered after its timeout, or a second answer: nobody waits for it
    // As nats.js (`isRequestError`): only an empty message with status 503 is the server's "no responders".
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      waiting.reject(new NoResponders(`no responders for ${waiting.subject}`));
    } else waiting.resolve(msg.data);
  }

  private drop(token: string): Waiting | undefined {
    const waiting = this.waiting.get(token);
    if (!waiting) return undefined;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    return waiting;
  }
}
