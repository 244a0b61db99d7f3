import { USER_SETTING_DEFAULTS } from '@chat/protocol';
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS } from '../../users/settings-values.js';

/** The original's custom profile field types, by name. */
const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Users' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
};

/**
 * Sections whose operations this server does not have yet: each answers
 * what the original answers for a user and organization that have none
 * (no alert words, muted users, profile fields, embedded bots, linkifiers, scheduled
 * messages, ...), keyed by the `fetch_event_types` value that asks for it.
 */
const EMPTY: Record<string, () => Record<string, unknown>> = {
  custom_profile_fields: () => ({ custom_profile_fields: [], custom_profile_field_types: CUSTOM_PROFILE_FIELD_TYPES }),
  onboarding_steps: () => ({ onboarding_steps: [], navigation_tour_video_url: null }),
  realm_domains: () => ({ realm_domains: [] }),
  realm_filters: () => ({ realm_filters: [] }),
  realm_embedded_bots: () => ({ realm_embedded_bots: [] }),
  realm_incoming_webhook_bots: () => ({ realm_incoming_webhook_bots: [] }),
  default_stream_groups: () => ({ realm_default_stream_groups: [] }),
  stop_words: () => ({ stop_words: [] }),
  video_calls: () => ({ has_zoom_token: false }),
  giphy: () => ({ giphy_api_key: '' }),
  realm_billing: () => ({ realm_billing: { has_pending_sponsorship_request: false } }),
};

export function emptySections(wants: (section: string) => boolean): Record<string, unknown> {
  return Object.assign({}, ...Object.entries(EMPTY).map(([section, make]) => (wants(section) ? make() : {})));
}

/** The settings new users start with: the server's defaults, as the organization's administrators changed them. */
export function userDefaultsSection(changed: Record<string, unknown>): Record<string, unknown> {
  return {
    realm_user_settings_defaults: {
      ...USER_SETTING_DEFAULTS,
      ...changed,
      available_notification_sounds: [...NOTIFICATION_SOUNDS],
      emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    },
  };
}
