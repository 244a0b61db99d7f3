import type { ProtocolOf } from './contract.js';
import type { BotStorageCommand, BotStorageReplies } from './bots.js';
/**
 * A person's own data kept by their UserActor: drafts, saved snippets,
 * navigation views and push devices. The edge validates what needs the
 * realm (channels, users); the actor decides what needs the user's state.
 */

/** The reference's `Draft`: `to` is one channel id, user ids, or empty for an unaddressed draft. */
export interface Draft {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  /** Seconds. */
  timestamp: number;
}

/** A draft as the edge hands it over: checked and normalized; `timestamp` absent means now. */
export type DraftInput = Omit<Draft, 'id' | 'timestamp'> & { timestamp?: number };

/** The reference's `SavedSnippet`. */
export interface SavedSnippet {
  id: number;
  title: string;
  content: string;
  /** Seconds. */
  date_created: number;
}

/** The reference's `NavigationView`: built-in views have a null name. */
export interface NavigationView {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

/** The legacy push registrations: Apple (APNs) device tokens and Android (FCM) registration ids. */
export type PushKind = 'apns' | 'fcm';

export interface PushDevice {
  kind: PushKind;
  token: string;
  /** The iOS app's bundle id; APNs only. */
  appid?: string;
}

/** An end-to-end encrypted push registration (`POST /mobile_push/register`), by the client's push account id. */
export interface E2eePushDevice {
  push_account_id: number;
  token_kind: PushKind;
  push_public_key: string;
  bouncer_public_key: string;
  encrypted_push_registration: string;
  status: E2eePushStatus;
  error_code: string | null;
}
export type E2eePushStatus = 'pending' | 'active' | 'failed';

/** The sections of POST /register these commands feed. */
export interface PersonalSnapshot {
  drafts?: Draft[];
  saved_snippets?: SavedSnippet[];
  navigation_views?: NavigationView[];
  push_devices?: Record<string, { status: E2eePushStatus; error_code: string | null }>;
}

export type DraftCommand =
  | { type: 'user.drafts' }
  /** Replies `{ids}` in the order given; refused when the user turned draft synchronization off. */
  | { type: 'user.createDrafts'; drafts: DraftInput[] }
  | { type: 'user.editDraft'; draft_id: number; draft: DraftInput }
  | { type: 'user.deleteDraft'; draft_id: number };

export type SnippetCommand =
  | { type: 'user.snippets' }
  /** Replies `{saved_snippet_id}`. */
  | { type: 'user.createSnippet'; title: string; content: string }
  | { type: 'user.editSnippet'; saved_snippet_id: number; title?: string; content?: string }
  | { type: 'user.deleteSnippet'; saved_snippet_id: number };

export type NavigationViewCommand =
  | { type: 'user.navigationViews' }
  | { type: 'user.addNavigationView'; view: NavigationView }
  | { type: 'user.editNavigationView'; fragment: string; is_pinned?: boolean; name?: string }
  | { type: 'user.removeNavigationView'; fragment: string };

export type PushDeviceCommand =
  | { type: 'user.addPushDevice'; device: PushDevice }
  | { type: 'user.removePushDevice'; kind: PushKind; token: string }
  /** The user's devices; with `token`, the ones holding it, or INVALID_PUSH_DEVICE_TOKEN. */
  | { type: 'user.pushDevices'; token?: string }
  /** Records an E2EE registration as pending (again, if the push account id was registered before). */
  | { type: 'user.registerE2eePush'; device: Omit<E2eePushDevice, 'status' | 'error_code'> }
  /** What the bouncer said of a registration; the user's clients hear `push_device`. */
  | { type: 'user.e2eePushStatus'; push_account_id: number; status: E2eePushStatus; error_code: string | null }
  /** The E2EE registrations, or the one of `push_account_id` (none if unknown). */
  | { type: 'user.e2eePushDevices'; push_account_id?: number };

export type PersonalReplies = BotStorageReplies & {
  /** `count` is the number of drafts. */
  'user.drafts': { count: number; drafts: Draft[] };
  'user.createDrafts': { ids: number[] };
  'user.editDraft': null;
  'user.deleteDraft': null;
  'user.snippets': { saved_snippets: SavedSnippet[] };
  'user.createSnippet': { saved_snippet_id: number };
  'user.editSnippet': null;
  'user.deleteSnippet': null;
  'user.navigationViews': { navigation_views: NavigationView[] };
  'user.addNavigationView': null;
  'user.editNavigationView': null;
  'user.removeNavigationView': null;
  'user.addPushDevice': null;
  'user.removePushDevice': null;
  'user.pushDevices': PushDevice[];
  /** `registered` false: the account was already registered without an error, and nothing changed. */
  'user.registerE2eePush': { registered: boolean };
  'user.e2eePushStatus': null;
  'user.e2eePushDevices': E2eePushDevice[];
  'user.personalSnapshot': PersonalSnapshot;
};

export type PersonalCommand =
  | DraftCommand
  | SnippetCommand
  | NavigationViewCommand
  | PushDeviceCommand
  | BotStorageCommand
  /** The register sections named in `sections` (`drafts`, `saved_snippets`, `navigation_views`). */
  | { type: 'user.personalSnapshot'; sections: string[] };

export type PersonalProtocol = ProtocolOf<PersonalCommand, PersonalReplies>;
