import type { PersonalProtocol, PersonalSnapshot } from '@chat/protocol';
import { applyBotStorageEvent, botStorageHandlers, type BotStorageEvent } from './bot-storage.js';
import { applyDraftEvent, draftHandlers, draftsSection, type DraftEvent } from './drafts.js';
import { applyPushEvent, pushDevicesSection, pushHandlers, type PushEvent } from './push.js';
import { applySnippetEvent, listSnippets, snippetHandlers, type SnippetEvent } from './snippets.js';
import type { UserEvent, UserHandlers, UserState } from '../state.js';
import { applyViewEvent, listViews, viewHandlers, type ViewEvent } from './views.js';

/**
 * A person's own data (drafts, saved snippets, navigation views, push
 * devices, a bot's storage), each part in its own module; this one routes commands and
 * events to them so the actor's main switch stays short.
 */
export type PersonalEvent = DraftEvent | SnippetEvent | ViewEvent | PushEvent | BotStorageEvent;

const EVENTS: Record<PersonalEvent['type'], (state: UserState, event: never) => void> = {
  draftsAdded: applyDraftEvent,
  draftEdited: applyDraftEvent,
  draftRemoved: applyDraftEvent,
  snippetAdded: applySnippetEvent,
  snippetEdited: applySnippetEvent,
  snippetRemoved: applySnippetEvent,
  viewAdded: applyViewEvent,
  viewEdited: applyViewEvent,
  viewRemoved: applyViewEvent,
  pushDeviceAdded: applyPushEvent,
  pushDeviceRemoved: applyPushEvent,
  e2eePushSaved: applyPushEvent,
  botStoragePut: applyBotStorageEvent,
  botStorageRemoved: applyBotStorageEvent,
};

export const isPersonalEvent = (event: UserEvent): event is PersonalEvent => Object.hasOwn(EVENTS, event.type);

export function applyPersonalEvent(state: UserState, event: PersonalEvent): void {
  EVENTS[event.type](state, event as never);
}

/** The handlers of a person's own data: each part's commands go to its module. */
export const personalHandlers: UserHandlers<PersonalProtocol> = {
  ...draftHandlers,
  ...snippetHandlers,
  ...viewHandlers,
  ...pushHandlers,
  ...botStorageHandlers,
  'user.personalSnapshot': (ctx, command) => {
    const wants = new Set(command.sections);
    const reply: PersonalSnapshot = {};
    if (wants.has('drafts')) reply.drafts = draftsSection(ctx.state);
    if (wants.has('saved_snippets')) reply.saved_snippets = listSnippets(ctx.state);
    if (wants.has('navigation_views')) reply.navigation_views = listViews(ctx.state);
    if (wants.has('push_device')) reply.push_devices = pushDevicesSection(ctx.state);
    return { reply };
  },
};
