import type { Fleet } from './fleet.js';
import { InFlight, openLoop } from './load.js';
import { KindStats } from './traffic.js';
import { pool, until } from './util.js';

const A_WEEK = 7 * 24 * 3600;

/**
 * Presence as clients report it: each live client every `seconds` by the
 * wall clock, for the whole run, steps or not. (Tied to the server's steps
 * only, the interleaved baseline steps would stretch the interval past the
 * server's offline threshold, and everyone would come online again, an event
 * to everyone, in the middle of a step.)
 */
export class PresenceLoop {
  /** Replaced by `measure()`, which starts a new interval of figures. */
  stats = new KindStats();
  readonly errorSamples: string[] = [];
  skipped: string | undefined;
  private readonly inFlight = new InFlight();
  private stopped = false;
  private running: Promise<unknown> | undefined;
  private next = 0;

  constructor(
    private readonly fleet: Fleet,
    private readonly seconds: number,
  ) {
    if (seconds === 0) this.skipped = 'turned off';
  }

  /**
   * Reports presence once for every client, as at page load (`ping_only`, as the web app: its snapshot has
   * everyone's); skipped if the server does not answer it with 200.
   */
  async comeOnline(): Promise<void> {
    const first = this.fleet.clients[0];
    if (this.skipped || !first) return;
    // Page loads of a client that a loaded server refused come again (setup is not measured).
    const answer = await first.ping(5, true);
    if (answer.status !== 200) {
      this.skipped = `POST /users/me/presence answered ${answer.status}`;
      return;
    }
    await pool(this.fleet.clients.slice(1), 8, async (client) => void (await client.ping(5, true)));
  }

  /** Starts new figures (those of the interval so far are returned). */
  measure(): KindStats {
    const done = this.stats;
    this.stats = new KindStats();
    return done;
  }

  start(): void {
    if (this.skipped || this.fleet.clients.length === 0) return;
    const rate = this.fleet.clients.length / this.seconds;
    this.running = openLoop(
      rate,
      A_WEEK,
      (intended) => this.fire(intended),
      () => this.stopped,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await until(() => this.inFlight.count === 0, 30_000);
  }

  private fire(intended: number): void {
    const clients = this.fleet.clients;
    const client = clients[this.next++ % clients.length]!;
    this.stats.count++;
    const stats = this.stats;
    void this.inFlight.track(client.ping()).then((answer) => {
      if (!stats.record(answer, intended) && this.errorSamples.length < 5) {
        this.errorSamples.push(`presence: ${answer.status} ${answer.body.msg}`);
      }
    });
  }
}
