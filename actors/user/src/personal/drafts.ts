import type { PersonalReplies } from '@chat/protocol';
import {
  ChatError,
  draftRemoved,
  draftsAdded,
  draftUpdated,
  type Draft,
  type DraftCommand,
  type DraftInput,
  type QueueEvent,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import type { UserEvent, UserState } from '../state.js';

/** The user's drafts by id, synchronized between their clients. */
export interface DraftsState {
  byId: Record<string, Draft>;
  lastId: number;
}

export type DraftEvent =
  | { type: 'draftsAdded'; drafts: Draft[] }
  | { type: 'draftEdited'; draft: Draft }
  | { type: 'draftRemoved'; draftId: number };

/** The register response carries at most this many drafts, as the original's. */
const MAX_DRAFTS_IN_REGISTER = 1000;

/** Synchronization is on unless the user turned it off (settings.ts, absent in older snapshots). */
export const draftsSynchronized = (state: Readonly<UserState>): boolean =>
  state.settings?.enable_drafts_synchronization !== false;

/** Most recently edited first, as the reference documents. */
export function listDrafts(state: Readonly<UserState>, limit = Infinity): Draft[] {
  return Object.values(state.drafts?.byId ?? {})
    .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
    .slice(0, limit);
}

/** The register section: empty while synchronization is off, as in the original. */
export const draftsSection = (state: Readonly<UserState>) =>
  draftsSynchronized(state) ? listDrafts(state, MAX_DRAFTS_IN_REGISTER) : [];

export function applyDraftEvent(state: UserState, event: DraftEvent): void {
  const drafts = (state.drafts ??= { byId: {}, lastId: 0 });
  switch (event.type) {
    case 'draftsAdded':
      for (const draft of event.drafts) {
        drafts.byId[draft.id] = draft;
        drafts.lastId = Math.max(drafts.lastId, draft.id);
      }
      return;
    case 'draftEdited':
      drafts.byId[event.draft.id] = event.draft;
      return;
    case 'draftRemoved':
      delete drafts.byId[event.draftId];
      return;
  }
}

const stamped = (id: number, input: DraftInput, now: number): Draft => ({
  id,
  type: input.type,
  to: input.to,
  topic: input.topic,
  content: input.content,
  timestamp: Math.floor(input.timestamp ?? now / 1000),
});

/** Each command's decision, with the reply its protocol table names. */
export function decideDraft<K extends DraftCommand['type']>(
  ctx: ActorContext<UserState>,
  command: Extract<DraftCommand, { type: K }>,
): Decision<UserEvent, PersonalReplies[K]>;
export function decideDraft(ctx: ActorContext<UserState>, command: DraftCommand): Decision<UserEvent> {
  const state = ctx.state;
  if (!draftsSynchronized(state)) throw new ChatError('BAD_REQUEST', 'User has disabled synchronizing drafts.');
  const own = (event: QueueEvent) => toOwnQueues(ctx.address.key, state, [event]);
  const existing = (id: number) => {
    const draft = state.drafts?.byId[id];
    if (!draft) throw new ChatError('RESOURCE_NOT_FOUND', 'Draft does not exist');
    return draft;
  };
  switch (command.type) {
    case 'user.drafts': {
      const drafts = listDrafts(state);
      return { reply: { count: drafts.length, drafts } };
    }
    case 'user.createDrafts': {
      const first = (state.drafts?.lastId ?? 0) + 1;
      const drafts = command.drafts.map((input, i) => stamped(first + i, input, ctx.now));
      if (drafts.length === 0) return { reply: { ids: [] } };
      return {
        events: [{ type: 'draftsAdded', drafts }],
        tells: own(draftsAdded(drafts)),
        reply: { ids: drafts.map((d) => d.id) },
      };
    }
    case 'user.editDraft': {
      const draft = stamped(existing(command.draft_id).id, command.draft, ctx.now);
      return {
        events: [{ type: 'draftEdited', draft }],
        tells: own(draftUpdated(draft)),
        reply: null,
      };
    }
    case 'user.deleteDraft': {
      const { id } = existing(command.draft_id);
      return {
        events: [{ type: 'draftRemoved', draftId: id }],
        tells: own(draftRemoved(id)),
        reply: null,
      };
    }
  }
}
