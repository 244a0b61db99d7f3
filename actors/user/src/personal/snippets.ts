import type { PersonalReplies } from '@chat/protocol';
import {
  ChatError,
  snippetRemoved,
  snippetSaved,
  type QueueEvent,
  type SavedSnippet,
  type SnippetCommand,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import type { UserEvent, UserState } from '../state.js';

/** Texts the user keeps to insert into messages, by id. */
export interface SnippetsState {
  byId: Record<string, SavedSnippet>;
  lastId: number;
}

export type SnippetEvent =
  | { type: 'snippetAdded'; snippet: SavedSnippet }
  | { type: 'snippetEdited'; id: number; title?: string; content?: string }
  | { type: 'snippetRemoved'; id: number };

/** In the order they were created. */
export const listSnippets = (state: Readonly<UserState>): SavedSnippet[] =>
  Object.values(state.snippets?.byId ?? {}).sort((a, b) => a.id - b.id);

export function applySnippetEvent(state: UserState, event: SnippetEvent): void {
  const snippets = (state.snippets ??= { byId: {}, lastId: 0 });
  switch (event.type) {
    case 'snippetAdded':
      snippets.byId[event.snippet.id] = event.snippet;
      snippets.lastId = Math.max(snippets.lastId, event.snippet.id);
      return;
    case 'snippetEdited': {
      const snippet = snippets.byId[event.id];
      if (!snippet) return;
      if (event.title !== undefined) snippet.title = event.title;
      if (event.content !== undefined) snippet.content = event.content;
      return;
    }
    case 'snippetRemoved':
      delete snippets.byId[event.id];
      return;
  }
}

/** Each command's decision, with the reply its protocol table names. */
export function decideSnippet<K extends SnippetCommand['type']>(
  ctx: ActorContext<UserState>,
  command: Extract<SnippetCommand, { type: K }>,
): Decision<UserEvent, PersonalReplies[K]>;
export function decideSnippet(ctx: ActorContext<UserState>, command: SnippetCommand): Decision<UserEvent> {
  const state = ctx.state;
  const own = (event: QueueEvent) => toOwnQueues(ctx.address.key, state, [event]);
  const existing = (id: number) => {
    const snippet = state.snippets?.byId[id];
    if (!snippet) throw new ChatError('RESOURCE_NOT_FOUND', 'Saved snippet does not exist.');
    return snippet;
  };
  switch (command.type) {
    case 'user.snippets':
      return { reply: { saved_snippets: listSnippets(state) } };
    case 'user.createSnippet': {
      const snippet: SavedSnippet = {
        id: (state.snippets?.lastId ?? 0) + 1,
        title: command.title,
        content: command.content,
        date_created: Math.floor(ctx.now / 1000),
      };
      return {
        events: [{ type: 'snippetAdded', snippet }],
        tells: own(snippetSaved('add', snippet)),
        reply: { saved_snippet_id: snippet.id },
      };
    }
    case 'user.editSnippet': {
      const { saved_snippet_id: id, title, content } = command;
      // Nothing to change: answered before any lookup and without an event, as in the original.
      if (title === undefined && content === undefined) return { reply: null };
      const before = existing(id);
      const after: SavedSnippet = { ...before, title: title ?? before.title, content: content ?? before.content };
      return {
        events: [
          {
            type: 'snippetEdited',
            id,
            ...(title !== undefined && { title }),
            ...(content !== undefined && { content }),
          },
        ],
        tells: own(snippetSaved('update', after)),
        reply: null,
      };
    }
    case 'user.deleteSnippet': {
      const { id } = existing(command.saved_snippet_id);
      return {
        events: [{ type: 'snippetRemoved', id }],
        tells: own(snippetRemoved(id)),
        reply: null,
      };
    }
  }
}
