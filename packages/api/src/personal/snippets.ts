import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { LIMITS } from '../limits.js';
import type { ApiOptions } from '../options.js';

/** The original's limit on a snippet's title; its content may be as long as a message. */
const MAX_TITLE_LENGTH = 60;

/** Trimmed, then neither blank nor too long, in the wording of the original's parameter checks. */
function checkText(name: string, value: string, max: number): string {
  const text = value.trim();
  if (text === '') throw new ChatError('BAD_REQUEST', `${name} cannot be blank`);
  if ([...text].length > max) throw new ChatError('BAD_REQUEST', `${name} is too long (limit: ${max} characters)`);
  return text;
}

const SnippetJson = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  content: Type.String(),
  date_created: Type.Integer(),
});

export function snippetRoutes(_options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/saved_snippets',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all saved snippets',
      description: "The caller's saved snippets, oldest first.",
      tags: ['drafts'],
      response: Type.Object({ saved_snippets: Type.Array(SnippetJson) }),
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, { type: 'user.snippets' });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/saved_snippets',
      auth: 'required',
      params: Type.Object({ title: Type.String(), content: Type.String() }),
      summary: 'Create a saved snippet',
      description: "Saves a text to insert into messages; the caller's clients hear a `saved_snippets` event.",
      tags: ['drafts'],
      response: Type.Object({ saved_snippet_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, {
          type: 'user.createSnippet',
          title: checkText('title', params.title, MAX_TITLE_LENGTH),
          content: checkText('content', params.content, LIMITS.max_message_length),
        });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/saved_snippets/{saved_snippet_id}',
      auth: 'required',
      params: Type.Object({
        saved_snippet_id: Type.Integer(),
        title: Type.Optional(Type.String()),
        content: Type.Optional(Type.String()),
      }),
      summary: 'Edit a saved snippet',
      description: "Changes the title, the content or both of one of the caller's saved snippets.",
      tags: ['drafts'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, {
          type: 'user.editSnippet',
          saved_snippet_id: params.saved_snippet_id,
          ...(params.title !== undefined && { title: checkText('title', params.title, MAX_TITLE_LENGTH) }),
          ...(params.content !== undefined && {
            content: checkText('content', params.content, LIMITS.max_message_length),
          }),
        });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/saved_snippets/{saved_snippet_id}',
      auth: 'required',
      params: Type.Object({ saved_snippet_id: Type.Integer() }),
      summary: 'Delete a saved snippet',
      description: "Deletes one of the caller's saved snippets.",
      tags: ['drafts'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, { type: 'user.deleteSnippet', saved_snippet_id: params.saved_snippet_id });
        return {};
      },
    }),
  ];
}
