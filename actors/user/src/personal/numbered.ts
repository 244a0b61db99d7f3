/**
 * Items a person numbers 1, 2, 3… in the order they were made (drafts,
 * saved snippets, scheduled messages and reminders): an id is never given
 * twice, even after its item is gone.
 */
export interface Numbered<T extends { id: number }> {
  byId: Record<string, T>;
  lastId: number;
}

/** The id the next item gets. */
export const nextId = (items: Numbered<{ id: number }> | undefined): number => (items?.lastId ?? 0) + 1;

export const emptyNumbered = <T extends { id: number }>(): Numbered<T> => ({ byId: {}, lastId: 0 });

/** Keeps an item under its id (a new one, or a new version of one). */
export function keep<T extends { id: number }>(items: Numbered<T>, item: T): void {
  items.byId[item.id] = item;
  items.lastId = Math.max(items.lastId, item.id);
}
