import type { Logger } from '@chat/runtime';

/**
 * Whether the shared counts can be reached. While they cannot, every hit is
 * allowed (see NatsRateLimitStore) and the outage is logged once, at warn,
 * when it starts; the first success after it is logged at info.
 */
export class RateLimitHealth {
  private failedAt: number | undefined;
  /** Set from the connection's status: while it is down nothing is tried. */
  disconnected = false;

  constructor(
    private readonly log: Logger,
    /** After a failure, hits are allowed without trying for this long, so that a sick server costs no waits. */
    private readonly pauseMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** False while the connection is down or shortly after a failure. */
  get usable(): boolean {
    if (this.disconnected) return false;
    return this.failedAt === undefined || this.now() - this.failedAt >= this.pauseMs;
  }

  failed(err: unknown): void {
    if (this.failedAt === undefined) {
      this.log.warn(
        { err: (err as Error)?.message ?? String(err) },
        'shared rate limits unreachable: allowing requests',
      );
    }
    this.failedAt = this.now();
  }

  succeeded(): void {
    if (this.failedAt === undefined) return;
    this.failedAt = undefined;
    this.log.info({}, 'shared rate limits reachable again');
  }
}
