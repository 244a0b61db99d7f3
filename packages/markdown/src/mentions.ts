import type { StateInline } from 'markdown-it';
import type { Env } from './env.js';
import { escapeAttr, escapeText } from './escape.js';
import type { RenderUser } from './types.js';
import { matchAt } from './match.js';
import { pushHtml } from './tokens.js';

/**
 * The original only starts a mention, group mention or channel link at the start
 * of the text or after whitespace, a quote, an opening bracket, "/" or "<", so
 * "email@**x**" or "a#**b**" are left alone.
 */
export function mayStartAt(src: string, pos: number): boolean {
  return pos === 0 || /[\s'"({[/<]/.test(src[pos - 1]!);
}

const USER = /@(_?)\*\*([^*\n]+)\*\*/y;
const GROUP = /@(_?)\*([^*\n]+)\*/y;
const BY_ID = /^(.*)\|(\d+)$/;
const CHANNEL_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);

/** `@**Full Name**`, `@**Name|id**`, `@**|id**`, wildcards, and their silent `@_` forms. */
export function userMention(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */ || !mayStartAt(state.src, state.pos)) return false;
  const m = matchAt(state, USER);
  if (!m) return false;
  const env = state.env as Env;
  const quiet = m[1] === '_';
  const body = m[2]!;
  const html = renderUserMention(env, body, quiet, silent);
  if (html === undefined) return false;
  if (!silent) pushHtml(state, html);
  state.pos += m[0].length;
  return true;
}

function renderUserMention(env: Env, body: string, quiet: boolean, silent: boolean): string | undefined {
  const cls = quiet ? ' silent' : '';
  const at = quiet ? '' : '@';
  if (CHANNEL_WILDCARDS.has(body)) {
    if (!env.ctx) return undefined;
    if (!silent && !quiet) env.channelWildcard = true;
    return `<span class="user-mention channel-wildcard-mention${cls}" data-user-id="*">${at}${body}</span>`;
  }
  if (body === 'topic') {
    if (!env.ctx) return undefined;
    if (!silent && !quiet) env.topicWildcard = true;
    return `<span class="topic-mention${cls}">${at}topic</span>`;
  }
  const byId = BY_ID.exec(body);
  if (!env.ctx) {
    // Scanning: note what to look up, and let the parse go on as if unresolved.
    if (!silent) {
      if (byId) {
        // Ids beyond what a number holds exactly cannot name anyone.
        const id = Number(byId[2]);
        if (Number.isSafeInteger(id)) env.found.userIds.add(id);
      } else env.found.userNames.add(body);
    }
    return undefined;
  }
  const user = byId ? env.ctx.usersById.get(Number(byId[2])) : onlyOne(env.ctx.usersByName.get(body.toLowerCase()));
  if (!user) return undefined;
  if (!silent) (quiet ? env.silent : env.mentioned).add(user.id);
  return `<span class="user-mention${cls}" data-user-id="${escapeAttr(String(user.id))}">${at}${escapeText(user.full_name)}</span>`;
}

/** A name several users share names nobody: the writer must disambiguate with |id. */
function onlyOne(users: RenderUser[] | undefined): RenderUser | undefined {
  return users && users.length === 1 ? users[0] : undefined;
}

/** `@*group*` and silent `@_*group*`. */
export function groupMention(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */ || !mayStartAt(state.src, state.pos)) return false;
  const m = matchAt(state, GROUP);
  if (!m) return false;
  const env = state.env as Env;
  const name = m[2]!;
  if (!env.ctx) {
    if (!silent) env.found.groupNames.add(name);
    return false;
  }
  const group = env.ctx.groupsByName.get(name.toLowerCase());
  if (!group) return false;
  const quiet = m[1] === '_';
  if (!silent) {
    if (!quiet) env.groups.add(group.id);
    pushHtml(
      state,
      `<span class="user-group-mention${quiet ? ' silent' : ''}" data-user-group-id="${escapeAttr(String(group.id))}">` +
        `${quiet ? '' : '@'}${escapeText(group.name)}</span>`,
    );
  }
  state.pos += m[0].length;
  return true;
}
