import {
  ChatError,
  draftRemoved,
  draftsAdded,
  draftUpdated,
  type Draft,
  type DraftCommand,
  type DraftInput,
  type PersonalProtocol,
  type QueueEvent,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import { emptyNumbered, keep, nextId, type Numbered } from './numbered.js';
import type { UserHandlers, UserState } from '../state.js';

/** The user's drafts by id, synchronized between their clients. */
export type DraftsState = Numbered<Draft>;

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
  const drafts = (state.drafts ??= emptyNumbered());
  switch (event.type) {
    case 'draftsAdded':
      for (const draft of event.drafts) keep(drafts, draft);
      return;
    case 'draftEdited':
      keep(drafts, event.draft);
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

const ownQueues = (ctx: ActorContext<UserState>, event: QueueEvent) => toOwnQueues(ctx.address.key, ctx.state, [event]);

/** Every draft command is refused while the user has synchronization off, as in the original. */
function synchronized(state: Readonly<UserState>): DraftsState | undefined {
  if (!draftsSynchronized(state)) throw new ChatError('BAD_REQUEST', 'User has disabled synchronizing drafts.');
  return state.drafts;
}

function existing(state: Readonly<UserState>, id: number): Draft {
  const draft = synchronized(state)?.byId[id];
  if (!draft) throw new ChatError('RESOURCE_NOT_FOUND', 'Draft does not exist');
  return draft;
}

export const draftHandlers: UserHandlers<Pick<PersonalProtocol, DraftCommand['type']>> = {
  'user.drafts': ({ state }) => {
    synchronized(state);
    const drafts = listDrafts(state);
    return { reply: { count: drafts.length, drafts } };
  },
  'user.createDrafts': (ctx, command) => {
    const first = nextId(synchronized(ctx.state));
    const drafts = command.drafts.map((input, i) => stamped(first + i, input, ctx.now));
    if (drafts.length === 0) return { reply: { ids: [] } };
    return {
      events: [{ type: 'draftsAdded', drafts }],
      tells: ownQueues(ctx, draftsAdded(drafts)),
      reply: { ids: drafts.map((d) => d.id) },
    };
  },
  'user.editDraft': (ctx, command) => {
    const draft = stamped(existing(ctx.state, command.draft_id).id, command.draft, ctx.now);
    return { events: [{ type: 'draftEdited', draft }], tells: ownQueues(ctx, draftUpdated(draft)), reply: null };
  },
  'user.deleteDraft': (ctx, command) => {
    const { id } = existing(ctx.state, command.draft_id);
    return { events: [{ type: 'draftRemoved', draftId: id }], tells: ownQueues(ctx, draftRemoved(id)), reply: null };
  },
};
