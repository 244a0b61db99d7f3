import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One file of the log. Its name is the first position it may hold, zero
 * padded, so that a plain sort of the directory is the log's order.
 */
export class Segment {
  /** Highest position held per partition: decides when it can be deleted. */
  readonly partitions = new Map<string, number>();
  private readers = 0;
  private deleted = false;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    readonly base: number,
    readonly handle: FileHandle,
    /** Bytes written so far; the next frame goes here. */
    public size: number,
  ) {}

  static fileName(base: number): string {
    return `${String(base).padStart(20, '0')}.log`;
  }

  static parseName(name: string): number | undefined {
    return /^\d{20}\.log$/.test(name) ? Number(name.slice(0, 20)) : undefined;
  }

  static async create(dir: string, base: number): Promise<Segment> {
    const path = join(dir, Segment.fileName(base));
    // 'wx+' (read/write, must not exist): a name clash would mean two logs disagree on positions; fail loudly.
    return new Segment(path, base, await open(path, 'wx+'), 0);
  }

  static async openExisting(dir: string, name: string): Promise<Segment> {
    const base = Segment.parseName(name);
    if (base === undefined) throw new Error(`not a journal segment: ${name}`);
    const path = join(dir, name);
    return new Segment(path, base, await open(path, 'r+'), 0);
  }

  /**
   * Reads a byte range. The handle stays open while the read runs even if the
   * segment is deleted meanwhile (an unlinked file stays readable on POSIX),
   * so a reader never races a release into EBADF.
   */
  async read(offset: number, length: number): Promise<Buffer> {
    this.readers++;
    try {
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.handle.read(buf, 0, length, offset);
      if (bytesRead !== length) throw new Error(`short read in ${this.path} at ${offset}`);
      return buf;
    } finally {
      this.readers--;
      if (this.deleted && this.readers === 0) await this.closeHandle();
    }
  }

  async delete(): Promise<void> {
    this.deleted = true;
    await unlink(this.path);
    if (this.readers === 0) await this.closeHandle();
  }

  close(): Promise<void> {
    return this.closeHandle();
  }

  /** Both a finishing reader and `delete` may get here; close only once. */
  private closeHandle(): Promise<void> {
    return (this.closing ??= this.handle.close());
  }
}
