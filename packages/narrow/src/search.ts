import type { NarrowMessage } from './types.js';

/**
 * Full-text search, modelled loosely on the original's PostgreSQL search (plainto_tsquery with an
 * English stemmer): the text is split into words, every query word must match some word of the
 * message, and quoted phrases must also occur verbatim (case-insensitively) in the raw content or
 * topic. We have no real stemmer, so a query word matches a message word when it is a prefix of it
 * or when both reduce to the same crude stem ("walked" finds "walking", "cats" finds "cat").
 */

/** A word is a run of letters (with their combining marks) and digits, like the tsearch parser's. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The lower-cased words of a text, in order. */
export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

/** Suffixes stripped by the crude stemmer; the stem must keep at least three characters. */
const SUFFIXES = ['ing', 'ed', 's'];

export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    // A double "s" ("class", "less") is part of the word, not a plural.
    if (suffix === 's' && word.endsWith('ss')) continue;
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Whether a message word (lower-cased) satisfies a query word (lower-cased). */
export function wordMatches(queryWord: string, word: string): boolean {
  return word.startsWith(queryWord) || stem(word) === stem(queryWord);
}

export interface SearchQuery {
  /** Every word of the operand, phrases included, as plainto_tsquery would take them. */
  words: string[];
  /** The inner text of each "quoted phrase", lower-cased. */
  phrases: string[];
}

export function parseSearch(operand: string): SearchQuery {
  const phrases: string[] = [];
  // The original's tokenization: a quoted run, or a run of non-space characters.
  for (const token of operand.match(/"[^"]+"|\S+/g) ?? []) {
    if (token.length > 1 && token.startsWith('"') && token.endsWith('"'))
      phrases.push(token.slice(1, -1).toLowerCase());
  }
  return { words: [...new Set(wordsOf(operand))], phrases };
}

/** Whether any query word matches `word`; used for highlighting too, so both agree. */
export function anyWordMatches(query: SearchQuery, word: string): boolean {
  return query.words.some((q) => wordMatches(q, word));
}

/** Whether the message satisfies one search operand. */
export function searchMatches(message: NarrowMessage, query: SearchQuery): boolean {
  // A query with no words (only punctuation) matches nothing, as an empty tsquery does.
  if (query.words.length === 0) return false;
  const isChannelMessage = message.channel_id !== null;
  const haystack = wordsOf(isChannelMessage ? `${message.topic} ${message.text}` : message.text);
  if (!query.words.every((q) => haystack.some((w) => wordMatches(q, w)))) return false;
  const content = message.content.toLowerCase();
  const topic = isChannelMessage ? message.topic.toLowerCase() : '';
  return query.phrases.every((p) => content.includes(p) || topic.includes(p));
}
