import { Type, type Static } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type DraftInput } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { LIMITS } from '../limits.js';
import type { ApiOptions } from '../options.js';

const DraftSchema = Type.Object(
  {
    type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')]),
    to: Type.Array(Type.Integer()),
    topic: Type.String(),
    content: Type.String(),
    timestamp: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);
type DraftParam = Static<typeof DraftSchema>;

const DraftJson = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  to: Type.Array(Type.Integer()),
  topic: Type.String(),
  content: Type.String(),
  timestamp: Type.Integer(),
});

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** Longer text is cut, with a marker, as the original does for drafts. */
function truncate(text: string, max: number, marker: string): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - marker.length).join('') + marker : text;
}

/**
 * A draft as the original stores it: content trimmed and checked, a channel
 * draft naming one channel the caller can see, a direct-message draft naming
 * real users (the caller dropped from a group), no recipient for the rest.
 */
async function checkDraft(caller: CallerContext, draft: DraftParam, name: string): Promise<DraftInput> {
  if (draft.content.trim() === '') throw bad(`${name}["content"] cannot be blank`);
  const body = draft.content.trimEnd().replace(/^\n+/, '');
  if (body.includes('\0')) throw bad('Message must not contain null bytes');
  const content = truncate(body, LIMITS.max_message_length, '\n[message truncated]');
  if (draft.timestamp !== undefined && draft.timestamp < 0) throw bad('Timestamp must not be negative.');
  const checked = (d: Omit<DraftInput, 'content' | 'timestamp'>): DraftInput =>
    draft.timestamp === undefined ? { ...d, content } : { ...d, content, timestamp: draft.timestamp };
  if (draft.type === 'stream') {
    const topic = truncate(draft.topic, LIMITS.max_topic_length, '...');
    if (topic.includes('\0')) throw bad('Topic must not contain null bytes');
    if (draft.to.length !== 1) throw bad('Must specify exactly 1 channel ID for channel messages');
    await caller.channelInfo(draft.to[0]!);
    return checked({ type: 'stream', to: draft.to, topic });
  }
  if (draft.type === 'private' && draft.to.length > 0) {
    const ids = [...new Set(draft.to)].sort((a, b) => a - b);
    const users = await caller.users(ids);
    for (const id of ids) if (!users.has(id)) throw bad(`Invalid user ID ${id}`);
    const me = caller.principal.user_id;
    const to = ids.length > 1 ? ids.filter((id) => id !== me) : ids;
    return checked({ type: 'private', to, topic: '' });
  }
  // Unaddressed, or a direct message to nobody yet: the original keeps no recipient for either.
  return checked({ type: '', to: [], topic: '' });
}

export function draftRoutes(_options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/drafts',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get drafts',
      description: "The caller's drafts, most recently edited first.",
      tags: ['drafts'],
      response: Type.Object({ count: Type.Integer(), drafts: Type.Array(DraftJson) }),
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, { type: 'user.drafts' });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/drafts',
      auth: 'required',
      params: Type.Object({ drafts: Type.Optional(Type.Array(DraftSchema, { default: [] })) }),
      summary: 'Create drafts',
      description: "Stores drafts; the caller's other clients hear of them through `drafts` events.",
      tags: ['drafts'],
      response: Type.Object({ ids: Type.Array(Type.Integer()) }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const drafts: DraftInput[] = [];
        for (const [i, draft] of (params.drafts ?? []).entries()) {
          drafts.push(await checkDraft(caller, draft, `drafts[${i}]`));
        }
        return actors.ask(caller.me, { type: 'user.createDrafts', drafts });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/drafts/{draft_id}',
      auth: 'required',
      params: Type.Object({ draft_id: Type.Integer(), draft: DraftSchema }),
      summary: 'Edit a draft',
      description: "Replaces one of the caller's drafts; their clients hear a `drafts` update.",
      tags: ['drafts'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const draft = await checkDraft(caller, params.draft, 'draft');
        await actors.ask(caller.me, { type: 'user.editDraft', draft_id: params.draft_id, draft });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/drafts/{draft_id}',
      auth: 'required',
      params: Type.Object({ draft_id: Type.Integer() }),
      summary: 'Delete a draft',
      description: "Deletes one of the caller's drafts; their clients hear a `drafts` removal.",
      tags: ['drafts'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, { type: 'user.deleteDraft', draft_id: params.draft_id });
        return {};
      },
    }),
  ];
}
