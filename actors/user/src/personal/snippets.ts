import {
  ChatError,
  snippetRemoved,
  snippetSaved,
  type PersonalProtocol,
  type QueueEvent,
  type SavedSnippet,
  type SnippetCommand,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import type { UserHandlers, UserState } from '../state.js';
import { emptyNumbered, keep, nextId, type Numbered } from './numbered.js';

/** Texts the user keeps to insert into messages, by id. */
export type SnippetsState = Numbered<SavedSnippet>;

export type SnippetEvent =
  | { type: 'snippetAdded'; snippet: SavedSnippet }
  | { type: 'snippetEdited'; id: number; title?: string; content?: string }
  | { type: 'snippetRemoved'; id: number };

/** In the order they were created. */
export const listSnippets = (state: Readonly<UserState>): SavedSnippet[] =>
  Object.values(state.snippets?.byId ?? {}).sort((a, b) => a.id - b.id);

export function applySnippetEvent(state: UserState, event: SnippetEvent): void {
  const snippets = (state.snippets ??= emptyNumbered());
  switch (event.type) {
    case 'snippetAdded':
      keep(snippets, event.snippet);
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

function existing(state: Readonly<UserState>, id: number): SavedSnippet {
  const snippet = state.snippets?.byId[id];
  if (!snippet) throw new ChatError('RESOURCE_NOT_FOUND', 'Saved snippet does not exist.');
  return snippet;
}

const ownQueues = (ctx: ActorContext<UserState>, event: QueueEvent) => toOwnQueues(ctx.address.key, ctx.state, [event]);

export const snippetHandlers: UserHandlers<Pick<PersonalProtocol, SnippetCommand['type']>> = {
  'user.snippets': ({ state }) => ({ reply: { saved_snippets: listSnippets(state) } }),
  'user.createSnippet': (ctx, command) => {
    const snippet: SavedSnippet = {
      id: nextId(ctx.state.snippets),
      title: command.title,
      content: command.content,
      date_created: Math.floor(ctx.now / 1000),
    };
    return {
      events: [{ type: 'snippetAdded', snippet }],
      tells: ownQueues(ctx, snippetSaved('add', snippet)),
      reply: { saved_snippet_id: snippet.id },
    };
  },
  'user.editSnippet': (ctx, { saved_snippet_id: id, title, content }) => {
    // Nothing to change: answered before any lookup and without an event, as in the original.
    if (title === undefined && content === undefined) return { reply: null };
    const before = existing(ctx.state, id);
    const after: SavedSnippet = { ...before, title: title ?? before.title, content: content ?? before.content };
    return {
      events: [
        { type: 'snippetEdited', id, ...(title !== undefined && { title }), ...(content !== undefined && { content }) },
      ],
      tells: ownQueues(ctx, snippetSaved('update', after)),
      reply: null,
    };
  },
  'user.deleteSnippet': (ctx, command) => {
    const { id } = existing(ctx.state, command.saved_snippet_id);
    return { events: [{ type: 'snippetRemoved', id }], tells: ownQueues(ctx, snippetRemoved(id)), reply: null };
  },
};
