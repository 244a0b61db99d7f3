/**
 * The events clients receive, by area: each kind is built by its constructor
 * (a misspelled field does not compile) and read by narrowing on `type`/`op`.
 */
import type { ChannelEvent } from './channels.js';
import type { BotAddEvent, StreamCreateEvent, StreamDeleteEvent, SubscriptionAddEvent } from './edge.js';
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
import type { MessageExtraEvent } from './messages.js';
import type { OrganizationEvent } from './organization.js';

export * from './channels.js';
export * from './edge.js';
export * from './groups.js';
export * from './personal.js';
export * from './realm.js';
export * from './users.js';
export * from './messages.js';
export * from './organization.js';

/** Every event kind clients receive, except `message` (see `MessageQueueEvent`): nothing else compiles as a queue event. */
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
  | BotAddEvent
  | StreamDeleteEvent
  | MessageExtraEvent
  | OrganizationEvent;
