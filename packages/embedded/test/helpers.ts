import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temp directories made by a test file, removed in its `after.always`. */
export class TempDirs {
  private readonly dirs: string[] = [];

  async make(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), `chat-embedded-${prefix}-`));
    this.dirs.push(dir);
    return dir;
  }

  async removeAll(): Promise<void> {
    await Promise.all(this.dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

export const bytes = (text: string) => new TextEncoder().encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);
