import type { PersonalCommand, PersonalSnapshot, UserCommand } from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { applyBotStorageEvent, decideBotStorage, type BotStorageEvent } from './bot-storage.js';
import { applyDraftEvent, decideDraft, draftsSection, type DraftEvent } from './drafts.js';
import { applyPushEvent, decidePush, type PushEvent } from './push.js';
import { applySnippetEvent, decideSnippet, listSnippets, type SnippetEvent } from './snippets.js';
import type { UserEvent, UserState } from '../state.js';
import { applyViewEvent, decideView, listViews, type ViewEvent } from './views.js';

/**
 * A person's own data (drafts, saved snippets, navigation views, push
 * devices, a bot's storage), each part in its own module; this one routes commands and
 * events to them so the actor's main switch stays short.
 */
export type PersonalEvent = DraftEvent | SnippetEvent | ViewEvent | PushEvent | BotStorageEvent;

// Typed as a record so that a command added to the protocol but not here fails to compile.
const COMMANDS: Record<PersonalCommand['type'], true> = {
  'user.drafts': true,
  'user.createDrafts': true,
  'user.editDraft': true,
  'user.deleteDraft': true,
  'user.snippets': true,
  'user.createSnippet': true,
  'user.editSnippet': true,
  'user.deleteSnippet': true,
  'user.navigationViews': true,
  'user.addNavigationView': true,
  'user.editNavigationView': true,
  'user.removeNavigationView': true,
  'user.addPushDevice': true,
  'user.removePushDevice': true,
  'user.pushDevices': true,
  'user.personalSnapshot': true,
  'user.botStorage': true,
  'user.putBotStorage': true,
  'user.removeBotStorage': true,
};

export const isPersonalCommand = (command: UserCommand): command is PersonalCommand =>
  Object.hasOwn(COMMANDS, command.type);

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
  botStoragePut: applyBotStorageEvent,
  botStorageRemoved: applyBotStorageEvent,
};

export const isPersonalEvent = (event: UserEvent): event is PersonalEvent => Object.hasOwn(EVENTS, event.type);

export function applyPersonalEvent(state: UserState, event: PersonalEvent): void {
  EVENTS[event.type](state, event as never);
}

export function decidePersonal(ctx: ActorContext<UserState>, command: PersonalCommand): Decision<UserEvent> {
  switch (command.type) {
    case 'user.drafts':
    case 'user.createDrafts':
    case 'user.editDraft':
    case 'user.deleteDraft':
      return decideDraft(ctx, command);
    case 'user.snippets':
    case 'user.createSnippet':
    case 'user.editSnippet':
    case 'user.deleteSnippet':
      return decideSnippet(ctx, command);
    case 'user.navigationViews':
    case 'user.addNavigationView':
    case 'user.editNavigationView':
    case 'user.removeNavigationView':
      return decideView(ctx, command);
    case 'user.addPushDevice':
    case 'user.removePushDevice':
    case 'user.pushDevices':
      return decidePush(ctx, command);
    case 'user.botStorage':
    case 'user.putBotStorage':
    case 'user.removeBotStorage':
      return decideBotStorage(ctx.state, command);
    case 'user.personalSnapshot': {
      const wants = new Set(command.sections);
      const reply: PersonalSnapshot = {};
      if (wants.has('drafts')) reply.drafts = draftsSection(ctx.state);
      if (wants.has('saved_snippets')) reply.saved_snippets = listSnippets(ctx.state);
      if (wants.has('navigation_views')) reply.navigation_views = listViews(ctx.state);
      return { reply };
    }
  }
}
