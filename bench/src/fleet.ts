import { Deliveries, LiveClient, PollStats, registerParams } from './clients.js';
import type { Options } from './config/args.js';
import type { Http } from './http.js';
import type { Progress } from './progress.js';
import type { BenchUser, Manifest } from './setup.js';
import { Latency } from './stats.js';
import { pool, until } from './util.js';

/** The live clients of a run: who has queues, and what registering them cost. */
export class Fleet {
  readonly clients: LiveClient[] = [];
  readonly deliveries = new Deliveries();
  readonly polls = new PollStats();
  readonly register = new Latency();
  registerErrors = 0;
  readonly registerErrorSamples: string[] = [];
  private readonly queuesOf = new Map<number, number>();
  private readonly params: Record<string, unknown>;

  constructor(
    private readonly http: Http,
    readonly manifest: Manifest,
    eventTypes: Options['eventTypes'],
  ) {
    this.params = registerParams(eventTypes);
  }

  /** How many live queues a user has: each one is a delivery of a message they receive. */
  queueCount(userIndex: number): number {
    return this.queuesOf.get(userIndex) ?? 0;
  }

  get liveUsers(): number[] {
    return [...this.queuesOf.keys()];
  }

  /**
   * Registers a queue for each given user (a user may appear more than once:
   * several tabs) and starts its poll loop. Failures are counted, not
   * thrown: how many queues a server holds is itself a measurement.
   */
  async add(users: BenchUser[], concurrency: number, progress?: Progress, batch?: Latency): Promise<void> {
    await pool(users, concurrency, async (user) => {
      const client = new LiveClient(user, this.http, this.deliveries, this.params, this.polls);
      const started = performance.now();
      const answer = await client.register();
      progress?.increment();
      if (answer.status !== 200) {
        this.registerErrors++;
        if (this.registerErrorSamples.length < 5) {
          this.registerErrorSamples.push(`POST /register: ${answer.status} ${answer.body.msg}`);
        }
        return;
      }
      this.register.recordMs(answer.end - started);
      batch?.recordMs(answer.end - started);
      this.clients.push(client);
      this.queuesOf.set(user.index, this.queueCount(user.index) + 1);
      client.start();
    });
  }

  /** Waits until no queue has had an event for `quietMs` (a burst of events from setup has passed), within `maxMs`. */
  settle(quietMs: number, maxMs: number): Promise<boolean> {
    return until(() => performance.now() - this.polls.lastEventAt > quietMs, maxMs, 100);
  }

  /** Ends the poll loops; their waiting requests end when the target's sockets close. */
  stop(): void {
    for (const client of this.clients) client.stop();
  }

  /** Deletes the queues (for a shared URL target, which would otherwise keep them for 10 minutes). */
  async deleteQueues(concurrency = 16): Promise<void> {
    await pool(this.clients, concurrency, async (client) => {
      await this.http.request('DELETE', '/events', { queue_id: client.queueId }, client.user);
    });
  }
}
