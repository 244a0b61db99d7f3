import { ChatError, type RealmSettings } from '@chat/protocol';

/** The limits clients learn from the register response; enforced here, at the edge. */
export const LIMITS = {
  max_message_length: 10000,
  max_topic_length: 60,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  /** Most messages one fetch may ask for, as the original. */
  max_fetch: 5000,
  /**
   * Most channels one subscription request may name: each may create a
   * channel, so this bounds the work of one request (20,000 names once took
   * 47 s and 500 MB).
   */
  max_channels_per_request: 500,
} as const;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

export function checkContent(content: string): string {
  if (content.trim() === '') throw bad('Message must not be empty');
  if (content.includes('\0')) throw bad('Message must not contain null bytes');
  if ([...content].length > LIMITS.max_message_length) {
    throw bad(`Message is too long (limit: ${LIMITS.max_message_length} characters)`);
  }
  return content;
}

/**
 * A topic as stored: `(no topic)` (where allowed) and the realm's display
 * name of the empty topic both mean the empty topic.
 */
export function normalizeTopic(raw: string, settings: RealmSettings, noTopicAlias = true): string {
  const topic = raw.trim();
  if (topic.includes('\0')) throw bad(`Invalid character in topic, at position ${raw.indexOf('\0') + 1}!`);
  if ([...topic].length > LIMITS.max_topic_length) {
    throw bad(`Topic is too long (limit: ${LIMITS.max_topic_length} characters)`);
  }
  if ((noTopicAlias && topic === '(no topic)') || topic === settings.empty_topic_display_name) return '';
  return topic;
}

export function checkDescription(description: string): string {
  if ([...description].length > LIMITS.max_stream_description_length) {
    throw new ChatError(
      'BAD_REQUEST',
      `Channel description too long (limit: ${LIMITS.max_stream_description_length} characters).`,
    );
  }
  return description;
}

/** Refuses a subscription request naming more channels than one request may. */
export function checkChannelCount(names: unknown[]): void {
  const limit = LIMITS.max_channels_per_request;
  if (names.length > limit) throw bad(`Too many channels in one request (limit: ${limit})`);
}
