import type { StateInline } from 'markdown-it';
import type { Env } from './env.js';
import { escapeAttr, escapeText } from './escape.js';
import { mayStartAt } from './mentions.js';
import { matchAt } from './match.js';
import { pushHtml } from './tokens.js';
import { channelUrl, topicUrl } from './urls.js';

const LINK = /#\*\*([^*\n]+)\*\*/y;
// The channel part stops at the first ">"; a trailing "@<digits>" names a message.
const MESSAGE = /^([^>]+)>(.*)@(\d+)$/;
const TOPIC = /^([^>]+)>(.*)$/;

/** `#**channel**`, `#**channel>topic**` and `#**channel>topic@123**` (a message link). */
export function channelLink(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23 /* # */ || !mayStartAt(state.src, state.pos)) return false;
  const m = matchAt(state, LINK);
  if (!m) return false;
  const body = m[1]!;
  const message = MESSAGE.exec(body);
  const topic = message ? undefined : TOPIC.exec(body);
  const name = (message ?? topic)?.[1] ?? body;
  const env = state.env as Env;
  if (!env.ctx) {
    if (!silent) env.found.channelNames.add(name);
    return false;
  }
  const channel = env.ctx.channelsByName.get(name.toLowerCase());
  if (!channel) return false;
  if (!silent) {
    const id = escapeAttr(String(channel.id));
    const label = escapeText(channel.name);
    let html: string;
    if (message) {
      const href = `${topicUrl(channel.id, channel.name, message[2]!)}/near/${message[3]}`;
      html = `<a class="message-link" href="${escapeAttr(href)}">#${label} &gt; ${escapeText(message[2]!)} @ 💬</a>`;
    } else if (topic) {
      const href = topicUrl(channel.id, channel.name, topic[2]!);
      html = `<a class="stream-topic" data-stream-id="${id}" href="${escapeAttr(href)}">#${label} &gt; ${escapeText(topic[2]!)}</a>`;
    } else {
      html = `<a class="stream" data-stream-id="${id}" href="${escapeAttr(channelUrl(channel.id, channel.name))}">#${label}</a>`;
    }
    pushHtml(state, html);
  }
  state.pos += m[0].length;
  return true;
}
