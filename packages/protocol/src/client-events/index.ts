/**
 * The events clients receive, by area: each kind is built by its constructor
 * (a misspelled field does not compile) and read by narrowing on `type`/`op`.
 */
import type { ChannelEvent } from './channels.js';
import type { BotAddEvent, StreamCreateEvent, SubscriptionAddEvent } from './edge.js';
import type { UserGroupEvent } from './groups.js';
import type { PersonalEvent } from './personal.js';
import type {
  CustomProfileFieldsEvent,
  RealmEventOfSettings,
  RealmExportConsentEvent,
  RealmExportEvent,
  RealmLinkifiersEvent,
} from './realm.js';
import type { UserEvent } from './users.js';

export * from './channels.js';
export * from './edge.js';
export * from './groups.js';
export * from './personal.js';
export * from './realm.js';
export * from './users.js';

/** Every typed client event kind (the rest are still `PlainQueueEvent`; see docs/architecture.md). */
export type ClientEvent =
  | ChannelEvent
  | PersonalEvent
  | UserEvent
  | UserGroupEvent
  | RealmEventOfSettings
  | RealmLinkifiersEvent
  | CustomProfileFieldsEvent
  | RealmExportEvent
  | RealmExportConsentEvent
  | SubscriptionAddEvent
  | StreamCreateEvent
  | BotAddEvent;
