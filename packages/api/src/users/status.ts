import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { checkEmoji, customEmoji, emojiByName, type CustomEmoji } from '../realm/emoji-choice.js';
import { ChatError, mayManageUser, type StatusEmoji } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { checkAccess } from './access.js';
import type { ApiOptions } from '../options.js';
import { changeSettings } from './settings.js';

const MAX_STATUS_TEXT_LENGTH = 60;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

interface StatusParams {
  status_text?: string;
  away?: boolean;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** What the request changes, checked in the original's order. */
async function statusChange(
  params: StatusParams,
  custom: () => Promise<CustomEmoji>,
): Promise<{ status_text?: string; emoji?: StatusEmoji; away?: boolean }> {
  const raw = params.status_text;
  if (raw !== undefined && [...raw].length > MAX_STATUS_TEXT_LENGTH) {
    throw bad(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  const text = raw?.trim();
  const { away, emoji_name: name, emoji_code: code, reaction_type: type } = params;
  if (away === undefined && text === undefined && name === undefined) {
    throw bad('Client did not pass any new values.');
  }
  if (name === undefined && (code !== undefined || type !== undefined)) {
    throw bad('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  let emoji: StatusEmoji | undefined;
  // An empty name clears the emoji.
  if (name === '') emoji = { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' };
  else if (name !== undefined) {
    const emojis = await custom();
    const chosen = code === undefined || type === undefined ? emojiByName(name, emojis) : { code, type };
    emoji = checkEmoji(name, chosen.code, chosen.type, emojis);
  }
  return {
    ...(text !== undefined ? { status_text: text } : {}),
    ...(emoji ? { emoji } : {}),
    ...(away !== undefined ? { away } : {}),
  };
}

export function statusRoutes(_options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/me/status',
      auth: 'required',
      params: Type.Object({
        status_text: Type.Optional(Type.String({ description: 'At most 60 characters; empty clears the text.' })),
        away: Type.Optional(Type.Boolean({ description: 'Deprecated: the inverse of `presence_enabled`.' })),
        emoji_name: Type.Optional(Type.String({ description: 'Empty clears the emoji.' })),
        emoji_code: Type.Optional(Type.String()),
        reaction_type: Type.Optional(Type.String()),
      }),
      summary: 'Update your status',
      description: "Changes only the parts of the caller's status that are passed.",
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const change = await statusChange(params, () => customEmoji(caller));
        // `away` is a legacy spelling of the presence_enabled setting.
        if (change.away !== undefined) await changeSettings(caller, { presence_enabled: !change.away });
        await actors.ask(caller.realm, { type: 'realm.setStatus', user_id: principal.user_id, ...change });
        return {};
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/status',
      auth: 'required',
      params: Type.Object({ user_id: Type.Integer({ description: "The target user's ID." }) }),
      summary: "Get a user's status",
      description: 'The status a user of the organization set; empty if none.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const status = await actors.ask(caller.realm, {
          type: 'realm.userStatus',
          user_id: params.user_id,
        });
        await checkAccess(caller, params.user_id);
        return { status };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/{user_id}/status',
      auth: 'required',
      params: Type.Object({
        user_id: Type.Integer({ description: "The target user's ID." }),
        status_text: Type.Optional(Type.String({ description: 'At most 60 characters; empty clears the text.' })),
        emoji_name: Type.Optional(Type.String({ description: 'Empty clears the emoji.' })),
        emoji_code: Type.Optional(Type.String()),
        reaction_type: Type.Optional(Type.String()),
      }),
      summary: "Update a user's status",
      description: "An administrator (or a bot's owner) changes another user's status, as they would their own.",
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const target = await actors.ask(caller.realm, { type: 'realm.getUser', user_id: params.user_id });
        // The original's access_user_by_id(for_admin=True).
        if (!mayManageUser({ id: principal.user_id, role: principal.role }, { botOwnerId: target.bot_owner_id })) {
          throw bad('Insufficient permission');
        }
        const { user_id, ...status } = params;
        const change = await statusChange(status, () => customEmoji(caller));
        await actors.ask(caller.realm, { type: 'realm.setStatus', user_id, ...change });
        return {};
      },
    }),
  ];
}
