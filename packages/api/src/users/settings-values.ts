import { ChatError } from '@chat/protocol';

/** The languages the original has translations for: code -> name in English (for `language_name`). */
export const LANGUAGES: Readonly<Record<string, string>> = {
  ar: 'Arabic',
  be: 'Belarusian',
  bg: 'Bulgarian',
  bn: 'Bengali',
  ca: 'Catalan',
  cs: 'Czech',
  cy: 'Welsh',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  en_GB: 'British English',
  eo: 'Esperanto',
  es: 'Spanish',
  fa: 'Persian',
  fi: 'Finnish',
  fr: 'French',
  gl: 'Galician',
  gu: 'Gujarati',
  hi: 'Hindi',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  lrc: 'Northern Luri',
  lt: 'Lithuanian',
  ml: 'Malayalam',
  mn: 'Mongolian',
  nl: 'Dutch',
  no: 'Norwegian',
  pa: 'Punjabi',
  pl: 'Polish',
  pt: 'Portuguese',
  pt_BR: 'Brazilian Portuguese',
  pt_PT: 'European Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  si: 'Sinhala',
  sk: 'Slovak',
  sr: 'Serbian',
  sv: 'Swedish',
  ta: 'Tamil',
  te: 'Telugu',
  tl: 'Tagalog',
  tr: 'Turkish',
  uk: 'Ukrainian',
  uz: 'Uzbek',
  vi: 'Vietnamese',
  'zh-hans': 'Simplified Chinese',
  'zh-hant': 'Traditional Chinese',
};

/** The sounds the original ships (`none` turns sounds off). */
export const NOTIFICATION_SOUNDS = [
  'ascend',
  'beep_boop',
  'bink',
  'bright',
  'brlip',
  'chime',
  'deep tom',
  'ding',
  'double tap',
  'down',
  'dry bongos',
  'dutdut',
  'fast ascend',
  'flute',
  'friendly',
  'kick roll',
  'loud tintong',
  'metallic snare',
  'pan',
  'shaker',
  'simple',
  'stairs',
  'subtle',
  'swish',
  'tintong',
  'up',
  'wood block',
  'zaping',
  'zing',
  'zulip',
] as const;

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
] as const;

/** The original allows batching e-mail notifications for up to a week. */
const MAX_BATCHING_SECONDS = 7 * 24 * 3600;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** An IANA zone the runtime knows; the empty string means "not set", as for new accounts. */
export function isTimezone(zone: string): boolean {
  if (zone === '') return true;
  try {
    // Intl reads zone names case-insensitively (and may answer an alias's canonical name);
    // a name is accepted only as the zone database spells it.
    const resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
    return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
  } catch {
    return false;
  }
}

/** The checks the original makes beyond each parameter's type, in its order and words. */
export function checkSettingValues(values: {
  default_language?: string;
  notification_sound?: string;
  email_notifications_batching_period_seconds?: number;
  timezone?: string;
}): void {
  if (values.timezone !== undefined && !isTimezone(values.timezone)) {
    throw bad('timezone is not a recognized time zone');
  }
  if (values.default_language !== undefined && !Object.hasOwn(LANGUAGES, values.default_language)) {
    throw bad('Invalid default_language');
  }
  const sound = values.notification_sound;
  if (sound !== undefined && sound !== 'none' && !(NOTIFICATION_SOUNDS as readonly string[]).includes(sound)) {
    throw bad(`Invalid notification sound '${sound}'`);
  }
  const period = values.email_notifications_batching_period_seconds;
  if (period !== undefined && (period <= 0 || period > MAX_BATCHING_SECONDS)) {
    throw bad(`Invalid email batching period: ${period} seconds`);
  }
}
