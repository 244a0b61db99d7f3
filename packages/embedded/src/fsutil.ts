import { open } from 'node:fs/promises';

/**
 * Makes a directory's entries (a created, renamed or deleted file) durable.
 * fsync on a file does not cover its name in the parent directory, so a file
 * created and synced right before a crash can otherwise vanish on reboot.
 */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isErrnoCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
