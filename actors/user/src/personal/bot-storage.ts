import { BOT_STORAGE_LIMIT, ChatError, type BotStorageProtocol } from '@chat/protocol';
import type { UserHandlers, UserState } from '../state.js';

/** What a bot keeps between runs (`/bot_storage`): string keys to string values, in its own actor. */
export type BotStorageEvent =
  { type: 'botStoragePut'; entries: Record<string, string> } | { type: 'botStorageRemoved'; keys: string[] };

const missing = () => new ChatError('BAD_REQUEST', 'Key does not exist.');

const sizeOf = (storage: Record<string, string>) =>
  Object.entries(storage).reduce((sum, [key, value]) => sum + key.length + value.length, 0);

export function applyBotStorageEvent(state: UserState, event: BotStorageEvent): void {
  const storage = (state.botStorage ??= {});
  if (event.type === 'botStoragePut') Object.assign(storage, event.entries);
  else for (const key of event.keys) delete storage[key];
}

/** The named keys (all when none are named); naming a missing key fails, as in the original. */
function keysOf(storage: Record<string, string>, named?: string[]): string[] {
  const chosen = named && named.length > 0 ? named : Object.keys(storage);
  if (chosen.some((key) => !Object.hasOwn(storage, key))) throw missing();
  return chosen;
}

/** The original's rules: the whole storage is at most BOT_STORAGE_LIMIT characters; naming a missing key fails. */
export const botStorageHandlers: UserHandlers<BotStorageProtocol> = {
  'user.botStorage': ({ state }, command) => {
    const storage = state.botStorage ?? {};
    return { reply: { storage: Object.fromEntries(keysOf(storage, command.keys).map((key) => [key, storage[key]!])) } };
  },
  'user.putBotStorage': ({ state }, command) => {
    const after = sizeOf({ ...state.botStorage, ...command.entries });
    if (after > BOT_STORAGE_LIMIT) {
      const over = after - BOT_STORAGE_LIMIT;
      throw new ChatError(
        'BAD_REQUEST',
        `Request exceeds storage limit by ${over} characters. The limit is ${BOT_STORAGE_LIMIT} characters.`,
      );
    }
    if (Object.keys(command.entries).length === 0) return { reply: null };
    return { events: [{ type: 'botStoragePut', entries: command.entries }], reply: null };
  },
  'user.removeBotStorage': ({ state }, command) => {
    const removed = keysOf(state.botStorage ?? {}, command.keys);
    if (removed.length === 0) return { reply: null };
    return { events: [{ type: 'botStorageRemoved', keys: removed }], reply: null };
  },
};
