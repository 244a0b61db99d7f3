import type { BotType, Role } from '@chat/protocol';

/** One account of the realm, as the RealmActor keeps it. */
export interface Account {
  id: number;
  email: string;
  fullName: string;
  role: Role;
  isActive: boolean;
  /** Epoch seconds. */
  dateJoined: number;
  apiKey: string;
  passwordHash: string | null;
  botType: BotType | null;
  botOwnerId: number | null;
  timezone: string;
  avatarVersion: number;
}

export interface RealmState {
  exists: boolean;
  id: number;
  stringId: string;
  name: string;
  description: string;
  development: boolean;
  webPublicAccessEnabled: boolean;
  dateCreated: number;
  accounts: Record<number, Account>;
  /** Lower-cased e-mail -> user id. */
  byEmail: Record<string, number>;
  nextUserId: number;
  /** The channel directory: lower-cased name -> channel id. */
  channelsByName: Record<string, number>;
  nextChannelId: number;
}

export type RealmEvent =
  | {
      type: 'realmCreated';
      id: number;
      name: string;
      description: string;
      development: boolean;
      webPublicAccessEnabled: boolean;
      at: number;
      firstUserId: number;
    }
  | { type: 'accountCreated'; account: Account }
  | { type: 'apiKeyChanged'; userId: number; apiKey: string }
  | { type: 'channelRegistered'; channelId: number; name: string };

export function initialState(stringId: string): RealmState {
  return {
    exists: false,
    id: 0,
    stringId,
    name: '',
    description: '',
    development: false,
    webPublicAccessEnabled: false,
    dateCreated: 0,
    accounts: {},
    byEmail: {},
    nextUserId: 1,
    channelsByName: {},
    nextChannelId: 1,
  };
}

export function applyEvent(state: RealmState, event: RealmEvent): void {
  switch (event.type) {
    case 'realmCreated':
      Object.assign(state, {
        exists: true,
        id: event.id,
        name: event.name,
        description: event.description,
        development: event.development,
        webPublicAccessEnabled: event.webPublicAccessEnabled,
        dateCreated: event.at,
        nextUserId: event.firstUserId,
      });
      return;
    case 'accountCreated':
      state.accounts[event.account.id] = event.account;
      state.byEmail[event.account.email.toLowerCase()] = event.account.id;
      state.nextUserId = Math.max(state.nextUserId, event.account.id + 1);
      return;
    case 'apiKeyChanged':
      state.accounts[event.userId]!.apiKey = event.apiKey;
      return;
    case 'channelRegistered':
      state.channelsByName[event.name.toLowerCase()] = event.channelId;
      state.nextChannelId = Math.max(state.nextChannelId, event.channelId + 1);
      return;
  }
}
