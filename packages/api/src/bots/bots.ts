import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type BotChanges, type ChannelEntry } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { presentBot } from './json.js';
import { checkAvatar, setAvatar } from '../uploads/avatars.js';
import { fakeEmailDomain } from '../email-domain.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const BotId = Type.Integer({ description: "The bot's user ID." });
const ChannelName = (what: string) => Type.Optional(Type.String({ description: `The name of the bot's ${what}.` }));

/** The original takes URLs JSON-encoded (`"https://..."`); a bare URL is taken too. */
function urlParam(name: string, raw: string): string {
  let value = raw;
  if (raw.startsWith('"')) {
    try {
      value = String(JSON.parse(raw));
    } catch {
      throw bad(`Argument "${name}" is not valid JSON.`);
    }
  }
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw bad(`${name} is not a URL`);
  return value;
}

/** A default channel by name, as the caller may use it (`access_stream_by_name`); '' clears it where allowed. */
async function channelId(caller: CallerContext, name: string): Promise<number> {
  const invalid = () => bad(`Invalid channel name '${name}'`);
  const entry = await caller.channelByName(name).catch((err: unknown) => {
    if (err instanceof ChatError) throw invalid();
    throw err;
  });
  if (entry.invite_only && !(await subscribed(caller, entry))) throw invalid();
  return entry.channel_id;
}

async function subscribed(caller: CallerContext, entry: ChannelEntry): Promise<boolean> {
  const state = await caller.state();
  return Object.hasOwn(state.subscriptions, String(entry.channel_id));
}

const oneFileAtMost = (files: unknown[]) => {
  if (files.length > 1) throw bad('You may only upload one file at a time');
};

/**
 * Bots (`/bots`): made by people, owned by their maker, administered by the
 * owner and the organization's administrators. The RealmActor decides
 * (`actors/realm/src/bots/`); the edge resolves default channels as the
 * caller sees them.
 */
export function botRoutes(options: ApiOptions): Route[] {
  const domain = fakeEmailDomain(options.externalUrl, options.fakeEmailDomain);
  return [
    defineRoute({
      method: 'POST',
      path: '/bots',
      auth: 'required',
      files: true,
      params: Type.Object({
        full_name: Type.String({ description: "The bot's name." }),
        short_name: Type.String({ description: 'Its address is `<short_name>-bot@<server>`.' }),
        bot_type: Type.Optional(
          Type.Integer({ default: 1, description: '1 generic, 2 incoming webhook, 3 outgoing webhook.' }),
        ),
        payload_url: Type.Optional(
          Type.String({ description: 'Outgoing webhook bots: where to POST (JSON-encoded).' }),
        ),
        service_name: Type.Optional(Type.String()),
        config_data: Type.Optional(Type.Record(Type.String(), Type.String())),
        interface_type: Type.Optional(Type.Integer({ default: 1, description: '1 Zulip, 2 Slack-compatible.' })),
        default_sending_stream: ChannelName('default sending channel'),
        default_events_register_stream: ChannelName('default channel for events'),
        default_all_public_streams: Type.Optional(Type.Boolean()),
      }),
      summary: 'Create a bot',
      description: 'A bot owned by the caller; answers its API key. An avatar image is optional (at most 5 MiB).',
      tags: ['users'],
      async handler({ params, principal, actors, files }) {
        oneFileAtMost(files);
        // The image is checked before the bot is made, so a bad one makes no bot.
        const image = files[0] && (await checkAvatar(files[0]));
        const caller = new CallerContext(actors, principal);
        const sending = params.default_sending_stream;
        const events = params.default_events_register_stream;
        const bot = await actors.ask(caller.realm, {
          type: 'realm.createBot',
          actor: principal,
          domain,
          bot: {
            full_name: params.full_name,
            short_name: params.short_name,
            bot_type: params.bot_type ?? 1,
            payload_url: params.payload_url === undefined ? '' : urlParam('payload_url', params.payload_url),
            interface_type: params.interface_type ?? 1,
            default_sending_stream_id: sending === undefined ? null : await channelId(caller, sending),
            default_events_register_stream_id: events === undefined ? null : await channelId(caller, events),
            default_all_public_streams: params.default_all_public_streams ?? false,
          },
        });
        // As the original: the bot is made first, then its avatar stored (a `realm_bot` update follows the add).
        const avatar_url = image
          ? await setAvatar(options, actors, principal, bot.user_id, image)
          : presentBot(bot).avatar_url;
        return {
          user_id: bot.user_id,
          api_key: bot.api_key,
          avatar_url,
          default_sending_stream: bot.default_sending_stream,
          default_events_register_stream: bot.default_events_register_stream,
          default_all_public_streams: bot.default_all_public_streams,
        };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/bots',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get own bots',
      description: "The caller's active bots, oldest first.",
      tags: ['users'],
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const bots = await actors.ask(caller.realm, {
          type: 'realm.bots',
          actor: principal,
          scope: 'owned',
        });
        return {
          bots: bots.map((bot) => ({
            username: bot.email,
            full_name: bot.full_name,
            api_key: bot.api_key,
            avatar_url: presentBot(bot).avatar_url,
            default_sending_stream: bot.default_sending_stream,
            default_events_register_stream: bot.default_events_register_stream,
            default_all_public_streams: bot.default_all_public_streams,
          })),
        };
      },
    }),

    defineRoute({
      method: 'PATCH',
      path: '/bots/{bot_id}',
      auth: 'required',
      files: true,
      params: Type.Object({
        bot_id: BotId,
        full_name: Type.Optional(Type.String()),
        role: Type.Optional(Type.Integer()),
        bot_owner_id: Type.Optional(Type.Integer()),
        config_data: Type.Optional(Type.Record(Type.String(), Type.String())),
        service_payload_url: Type.Optional(Type.String()),
        service_interface: Type.Optional(Type.Integer({ default: 1 })),
        default_sending_stream: Type.Optional(Type.String()),
        default_events_register_stream: Type.Optional(Type.String()),
        default_all_public_streams: Type.Optional(Type.Boolean()),
      }),
      summary: 'Update a bot',
      description:
        "Its owner or an administrator changes a bot's name, role, owner, service, defaults or avatar image.",
      tags: ['users'],
      async handler({ params, principal, actors, files }) {
        oneFileAtMost(files);
        const image = files[0] && (await checkAvatar(files[0]));
        const caller = new CallerContext(actors, principal);
        const channel = async (name: string | undefined) =>
          name === undefined ? undefined : name === '' ? null : await channelId(caller, name);
        const changes: BotChanges = {
          full_name: params.full_name,
          role: params.role,
          bot_owner_id: params.bot_owner_id,
          service_interface: params.service_interface,
          service_payload_url:
            params.service_payload_url === undefined
              ? undefined
              : urlParam('service_payload_url', params.service_payload_url),
          default_sending_stream_id: await channel(params.default_sending_stream),
          default_events_register_stream_id: await channel(params.default_events_register_stream),
          default_all_public_streams: params.default_all_public_streams,
        };
        const { bot, owner_email } = await actors.ask(caller.realm, {
          type: 'realm.updateBot',
          actor: principal,
          bot_id: params.bot_id,
          changes: JSON.parse(JSON.stringify(changes)) as BotChanges,
        });
        return {
          full_name: bot.full_name,
          avatar_url: image
            ? await setAvatar(options, actors, principal, bot.user_id, image)
            : presentBot(bot).avatar_url,
          service_interface: params.service_interface ?? 1,
          service_payload_url: changes.service_payload_url ?? null,
          config_data: params.config_data ?? null,
          default_sending_stream: bot.default_sending_stream,
          default_events_register_stream: bot.default_events_register_stream,
          default_all_public_streams: bot.default_all_public_streams,
          ...(owner_email !== null && { bot_owner: owner_email }),
        };
      },
    }),

    defineRoute({
      method: 'DELETE',
      path: '/bots/{bot_id}',
      auth: 'required',
      params: Type.Object({ bot_id: BotId }),
      summary: 'Deactivate a bot',
      description: 'Its owner or an administrator deactivates a bot: its key stops working at once.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.realm, { type: 'realm.deactivateBot', actor: principal, bot_id: params.bot_id });
        return {};
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/bots/{bot_id}/api_key/regenerate',
      auth: 'required',
      params: Type.Object({ bot_id: BotId }),
      summary: "Regenerate a bot's API key",
      description: 'A new key for the bot; the old one is refused at once.',
      tags: ['users'],
      response: Type.Object({ api_key: Type.String() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.realm, {
          type: 'realm.regenerateBotKey',
          actor: principal,
          bot_id: params.bot_id,
        });
      },
    }),
  ];
}
