import { isAbsolute } from 'node:path';

/**
 * The paths the embedded file store accepts, so that a deployment can move
 * its files between the two: relative, `/`-separated, no empty, `.` or `..`
 * segment, no NUL or backslash.
 */
export function checkFilePath(path: string): void {
  const refuse = (why: string) => new Error(`invalid file path ${JSON.stringify(path)}: ${why}`);
  if (path === '') throw refuse('empty');
  if (path.includes('\u0000') || path.includes('\\')) throw refuse('NUL or backslash');
  if (path.startsWith('/') || isAbsolute(path)) throw refuse('absolute');
  if (path.split('/').some((p) => p === '' || p === '.' || p === '..')) throw refuse('empty, . or .. segment');
}

/** Regroups a byte stream into chunks of exactly `size` bytes (the last one shorter), copying each once. */
export async function* rechunk(body: AsyncIterable<Uint8Array>, size: number): AsyncIterable<Buffer> {
  let chunk = Buffer.allocUnsafe(size);
  let filled = 0;
  for await (const piece of body) {
    let offset = 0;
    while (offset < piece.length) {
      const n = Math.min(size - filled, piece.length - offset);
      chunk.set(piece.subarray(offset, offset + n), filled);
      filled += n;
      offset += n;
      if (filled === size) {
        yield chunk;
        chunk = Buffer.allocUnsafe(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}

/**
 * At most `width` writes in flight: `add` waits for room. The first failure
 * is raised by the next `add` or by `drain`; no rejection goes unobserved.
 */
export class Window {
  private readonly pending = new Set<Promise<void>>();
  private failure: { err: unknown } | undefined;

  constructor(private readonly width: number) {}

  async add(work: Promise<unknown>): Promise<void> {
    const tracked: Promise<void> = work.then(
      () => void this.pending.delete(tracked),
      (err: unknown) => {
        this.failure ??= { err };
        this.pending.delete(tracked);
      },
    );
    this.pending.add(tracked);
    while (this.pending.size >= this.width) await Promise.race(this.pending);
    this.raise();
  }

  async drain(): Promise<void> {
    await this.settle();
    this.raise();
  }

  /** Waits for every write in flight, without raising. */
  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }

  private raise(): void {
    if (this.failure) throw this.failure.err;
  }
}
