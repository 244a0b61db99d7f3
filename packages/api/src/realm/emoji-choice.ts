import { emojiCharacters, emojiCode } from '@chat/markdown';
import { ChatError, type RealmEmoji, type ReactionType, type StatusEmoji } from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** The organization's custom emoji by id, deactivated ones too. */
export type CustomEmoji = Record<string, RealmEmoji>;

/** The emoji the original ships besides Unicode's, named by their code. */
const EXTRA_EMOJI = ['zulip'];

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

export const customEmoji = (caller: CallerContext) => caller.actors.ask(caller.realm, { type: 'realm.emoji' });

/** The active custom emoji by name, as Markdown renders them. */
export function activeByName(custom: CustomEmoji): Map<string, { id: string; source_url: string }> {
  const active = Object.values(custom).filter((e) => !e.deactivated);
  return new Map(active.map((e) => [e.name, { id: e.id, source_url: e.source_url }]));
}

/** An emoji chosen by name alone, as the original looks it up: an active custom emoji, then Unicode, then the extra ones. */
export function emojiByName(name: string, custom: CustomEmoji): { code: string; type: ReactionType } {
  const own = Object.values(custom).find((e) => e.name === name && !e.deactivated);
  if (own) return { code: own.id, type: 'realm_emoji' };
  const code = emojiCode(name);
  if (code !== undefined) return { code, type: 'unicode_emoji' };
  if (EXTRA_EMOJI.includes(name)) return { code: name, type: 'zulip_extra_emoji' };
  throw bad(`Emoji '${name}' does not exist`);
}

/** The original's check that a name, code and type denote one emoji, in its words. */
export function checkEmoji(name: string, code: string, type: string, custom: CustomEmoji): StatusEmoji {
  switch (type) {
    case 'realm_emoji': {
      const emoji = custom[code];
      if (!emoji) throw bad('Invalid custom emoji.');
      if (emoji.name !== name) throw bad('Invalid custom emoji name.');
      if (emoji.deactivated) throw bad('This custom emoji has been deactivated.');
      return { emoji_name: name, emoji_code: code, reaction_type: type };
    }
    case 'zulip_extra_emoji':
      if (!EXTRA_EMOJI.includes(code)) throw bad('Invalid emoji code.');
      if (name !== code) throw bad('Invalid emoji name.');
      return { emoji_name: name, emoji_code: code, reaction_type: type };
    case 'unicode_emoji':
      if (emojiCharacters(code) === undefined) throw bad('Invalid emoji code.');
      if (emojiCode(name) !== code) throw bad('Invalid emoji name.');
      return { emoji_name: name, emoji_code: code, reaction_type: type };
    default:
      throw bad('Invalid emoji type.');
  }
}
