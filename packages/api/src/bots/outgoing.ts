import type { AuthRequest } from '@chat/edge';
import { topicUrl } from '@chat/markdown';
import { realmAddress, type OutgoingService, type OwedWebhook, type Principal } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { CallerContext } from '../context.js';
import { getMessages, renderMessages } from '../messages/fetch.js';
import type { ApiOptions } from '../options.js';
import { sendMessage } from '../messages/send.js';
import { AnswerTooLarge, callUrl, PrivateAddress } from './egress.js';

type Logger = AuthRequest['log'];

/** The original's `OUTGOING_WEBHOOK_TIMEOUT_SECONDS`. */
const TIMEOUT_MS = 10_000;
/** The original's `MAX_REQUEST_RETRIES`: a timeout or connection error is tried again this many times. */
const RETRIES = 3;
/** An answer is read up to this size; a larger one is a failure. */
const MAX_ANSWER_BYTES = 1 << 20;
const SLACK_INTERFACE = 2;
/** The first retry's delay; each next one doubles it. */
const RETRY_DELAY_MS = 1000;

/** What a sent message is, for deciding which outgoing webhook bots it triggers. */
export interface Trigger {
  message_id: number;
  sender: Principal;
  /** Channel messages: the mentioned users. */
  mentioned_user_ids: number[];
  /** Direct messages: every participant. */
  dm_user_ids: number[] | null;
}

interface Delivery {
  service: OutgoingService;
  /** The Slack interface's `team_id` and `team_domain`. */
  team: { id: number; domain: string };
  trigger: 'mention' | 'direct_message';
  message: Record<string, unknown> & { id: number; type: string; content: string };
}

/**
 * Calls the outgoing webhook bots a sent message triggers, after the send
 * has answered (the caller does not wait): a mention in a channel, or a
 * direct message with the bot. Messages from bots trigger nothing, as in the
 * original (no loops between bots). Each call is first recorded as owed by
 * the realm, and removed once done, so a restart resumes it
 * (`resumeOwedWebhooks`).
 */
export async function triggerOutgoingWebhooks(
  caller: CallerContext,
  sent: Trigger,
  options: ApiOptions,
  log: Logger,
): Promise<void> {
  if (sent.sender.is_bot) return;
  const trigger = sent.dm_user_ids !== null ? 'direct_message' : 'mention';
  const candidates = (sent.dm_user_ids ?? sent.mentioned_user_ids).filter((id) => id !== sent.sender.user_id);
  if (candidates.length === 0) return;
  const realm = realmAddress(sent.sender.realm);
  const services = await caller.actors.ask(realm, { type: 'realm.outgoingServices', user_ids: candidates });
  if (services.length === 0) return;
  const owed = services.map((s) => ({ message_id: sent.message_id, bot_id: s.user_id, trigger }) as const);
  await caller.actors.ask(realm, { type: 'realm.oweWebhooks', owed });
  for (const [i, service] of services.entries()) void call(caller.actors, service, owed[i]!, options, log);
}

/**
 * Claims and makes the owed calls of `realm` recorded or claimed before
 * `before` (epoch ms): those a stopped process left undone.
 */
async function resumeOwedWebhooks(
  actors: ActorClient,
  realm: string,
  before: number,
  options: ApiOptions,
  log: Logger,
): Promise<number> {
  const address = realmAddress(realm);
  const owed = await actors.ask(address, { type: 'realm.claimOwedWebhooks', before });
  if (owed.length === 0) return 0;
  const bots = [...new Set(owed.map((o) => o.bot_id))];
  const services = await actors.ask(address, { type: 'realm.outgoingServices', user_ids: bots });
  for (const o of owed) {
    const service = services.find((s) => s.user_id === o.bot_id);
    if (service) void call(actors, service, o, options, log);
    else await done(actors, realm, o); // the bot is gone or changed type: nothing to call
  }
  return owed.length;
}

const done = (actors: ActorClient, realm: string, o: Omit<OwedWebhook, 'since'>) =>
  actors.ask(realmAddress(realm), { type: 'realm.webhookDone', message_id: o.message_id, bot_id: o.bot_id });

/** One owed call, made and then marked done; a failure to mark leaves it owed (called again after a restart). */
async function call(
  actors: ActorClient,
  service: OutgoingService,
  owed: Omit<OwedWebhook, 'since'>,
  options: ApiOptions,
  log: Logger,
): Promise<void> {
  const realmId = service.principal.realm;
  try {
    const bot = new CallerContext(actors, service.principal);
    const [located] = await getMessages(bot, [owed.message_id]);
    if (located) {
      const realm = await actors.ask(realmAddress(realmId), { type: 'realm.info' });
      const team = { id: realm.id, domain: new URL(options.externalUrl).host };
      const format = { apply_markdown: false, client_gravatar: false, empty_topic_name: null, realm: realmId };
      const [json] = await renderMessages(bot, [located.message], format);
      const message = { ...json!, rendered_content: located.message.rendered } as Delivery['message'];
      await deliver(bot, { service, team, trigger: owed.trigger, message }, options, log);
    }
    await done(actors, realmId, owed);
  } catch (err) {
    log.warn({ err, bot: service.user_id, message: owed.message_id }, 'outgoing webhook call not finished');
  }
}

/** How long a call may take at most: four 10 s tries and 7 s of waits. */
const LONGEST_CALL_MS = 4 * TIMEOUT_MS + 7 * RETRY_DELAY_MS;

/**
 * Resumes owed calls: at once those recorded before `firstBefore` (embedded,
 * nothing else makes calls), then every `everyMs` those left over `graceMs`
 * (a call takes at most LONGEST_CALL_MS plus its reply, so a younger one may
 * be in another edge's hands), in the default realm and every realm the
 * store's index names as owing (asked of the default realm's actor; the
 * index is shared). Returns
 * the function that stops it.
 */
export function sweepOwedWebhooks(
  actors: ActorClient,
  defaultRealm: string,
  firstBefore: number,
  options: ApiOptions,
  log: Logger,
  everyMs = 30_000,
  graceMs = Math.max(60_000, LONGEST_CALL_MS + 10_000),
): () => void {
  const sweep = async (before: number) => {
    const owing = await actors.ask(realmAddress(defaultRealm), { type: 'realm.owingRealms' });
    // The default realm always: calls owed before the index existed are found there too.
    for (const realm of new Set([defaultRealm, ...owing]))
      await resumeOwedWebhooks(actors, realm, before, options, log).catch((err: unknown) =>
        log.warn({ err, realm }, 'owed outgoing webhook calls not resumed'),
      );
  };
  const failed = (err: unknown) => log.warn({ err }, 'realms owing outgoing webhook calls not read');
  void sweep(firstBefore).catch(failed);
  const timer = setInterval(() => void sweep(Date.now() - graceMs).catch(failed), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Thrown for what the original retries: no connection, or no answer in time. */
class Unreachable extends Error {}

async function deliver(bot: CallerContext, delivery: Delivery, options: ApiOptions, log: Logger): Promise<void> {
  const reply = (content: string, widget?: string) => replyInConversation(bot, delivery, content, options, widget);
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await post(delivery, options.allowPrivateWebhooks === true);
      if (answer.status < 200 || answer.status > 299) {
        await reply(`Failure! Third party responded with ${answer.status}`);
        await notifyOwner(bot, delivery, options, `\nThe webhook got a response with status code *${answer.status}*.`);
        return;
      }
      const answered = contentOf(delivery.service, answer.text);
      if (answered !== null) await reply(answered.content, answered.widget_content);
      return;
    } catch (err) {
      if (err instanceof Unreachable && attempt < RETRIES) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 2 ** attempt));
        continue;
      }
      log.warn({ err, bot: delivery.service.user_id }, 'outgoing webhook failed');
      const [failure, detail] =
        err instanceof Unreachable
          ? ['Bot is unavailable', err.message]
          : [
              (err as Error).message,
              'The outgoing webhook server attempted to send a message in Zulip, ' +
                `but that request resulted in the following error:\n> ${(err as Error).message}`,
            ];
      await reply(`Failure! ${failure}`).catch(() => undefined);
      await notifyOwner(bot, delivery, options, `\n${detail}`).catch((e: unknown) =>
        log.warn({ err: e }, 'outgoing webhook failure not reported'),
      );
      return;
    }
  }
}

async function post(
  { service, team, trigger, message }: Delivery,
  allowPrivate: boolean,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'user-agent': 'ZulipOutgoingWebhook/11.0' };
  let body: string;
  if (service.interface === SLACK_INTERFACE) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams({
      token: service.token,
      team_id: `T${team.id}`,
      team_domain: team.domain,
      channel_id: `C${String(message.stream_id)}`,
      channel_name: String(message.display_recipient),
      thread_ts: String(message.timestamp),
      timestamp: String(message.timestamp),
      user_id: `U${String(message.sender_id)}`,
      user_name: String(message.sender_full_name),
      text: message.content,
      trigger_word: trigger,
      service_id: String(service.user_id),
    }).toString();
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({
      data: message.content,
      message,
      bot_email: service.email,
      bot_full_name: service.full_name,
      token: service.token,
      trigger,
    });
  }
  try {
    return await callUrl(service.base_url, {
      method: 'POST',
      headers,
      body,
      allowPrivate,
      timeoutMs: TIMEOUT_MS,
      maxAnswerBytes: MAX_ANSWER_BYTES,
    });
  } catch (err) {
    if (err instanceof PrivateAddress || err instanceof AnswerTooLarge) throw err;
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new Unreachable(
      timedOut
        ? `Request timed out after ${TIMEOUT_MS / 1000} seconds.`
        : 'A connection error occurred. Is my bot server down?',
    );
  }
}

/**
 * The message an answer asks for, or null: `response_not_required`, no
 * content, or blank content. With `content` (not `response_string`), the
 * Zulip interface also takes a `widget_content`, as the original does (a
 * JSON text, checked when sent; the original fails on any other kind, this
 * server leaves it out).
 */
function contentOf(service: OutgoingService, text: string): { content: string; widget_content?: string } | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('Invalid JSON in response');
  }
  if (json === '') return null; // old zulip_botserver's "no response"
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('Invalid response format');
  const answer = json as Record<string, unknown>;
  let content: unknown;
  if (service.interface === SLACK_INTERFACE) content = answer.text;
  else if (answer.response_not_required) return null;
  else content = answer.response_string ?? answer.content;
  if (content === undefined || content === null) return null;
  const s = String(content);
  if (s.trim() === '') return null;
  const widget = answer.response_string === undefined ? answer.widget_content : undefined;
  return service.interface !== SLACK_INTERFACE && typeof widget === 'string'
    ? { content: s, widget_content: widget }
    : { content: s };
}

async function replyInConversation(
  bot: CallerContext,
  { message }: Delivery,
  content: string,
  options: ApiOptions,
  widget_content?: string,
) {
  const request =
    message.type === 'stream'
      ? { type: 'stream', to: message.stream_id as number, topic: message.subject as string, content }
      : { type: 'private', to: (message.display_recipient as { id: number }[]).map((p) => p.id), content };
  await sendMessage(
    bot,
    { ...request, ...(widget_content !== undefined && { widget_content }) },
    options,
    'OutgoingWebhookResponse',
  );
}

/** The original's notice to the bot's owner, a direct message from the bot. */
async function notifyOwner(bot: CallerContext, { service, message }: Delivery, options: ApiOptions, detail: string) {
  if (service.owner_id === null) return;
  const where =
    message.type === 'stream'
      ? topicUrl(message.stream_id as number, message.display_recipient as string, message.subject as string)
      : `/#narrow/dm/${(message.display_recipient as { id: number }[]).map((p) => p.id).join(',')}-dm`;
  const url = `${options.externalUrl}${where}/near/${message.id}`;
  const content = `[A message](${url}) to your bot @_**${service.full_name}** triggered an outgoing webhook.${detail}`;
  await sendMessage(bot, { type: 'private', to: [service.owner_id], content }, options, 'OutgoingWebhookResponse');
}
