import type { ProtocolOf } from './contract.js';

/** The original's custom profile field types. */
export const PROFILE_FIELD_TYPES = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** A custom profile field as the API shows it; `field_data` is a JSON string. */
export interface ProfileField {
  id: number;
  type: number;
  order: number;
  name: string;
  hint: string;
  field_data: string;
  display_in_profile_summary?: boolean;
  required: boolean;
  editable_by_user: boolean;
}

/** What a field is made or changed with (the edge has checked each part alone). */
export type ProfileFieldSpec = Omit<ProfileField, 'id' | 'order'>;

/** One user's value of one field; `rendered_value` for the Markdown types. */
export interface ProfileValue {
  value: string;
  rendered_value?: string;
}

export type ProfileFieldCommand =
  | { type: 'realm.profileFields' }
  | { type: 'realm.addProfileField'; actor_id: number; field: ProfileFieldSpec }
  | { type: 'realm.updateProfileField'; actor_id: number; id: number; field: ProfileFieldSpec }
  | { type: 'realm.removeProfileField'; actor_id: number; id: number }
  | { type: 'realm.reorderProfileFields'; actor_id: number; ids: number[] }
  /** Sets (a value) or clears (null) fields of one user; by themselves, or by an administrator. */
  | {
      type: 'realm.setProfileData';
      actor_id: number;
      user_id: number;
      data: { id: number; value: ProfileValue | null }[];
    };

export type ProfileFieldReplies = {
  'realm.profileFields': ProfileField[];
  'realm.addProfileField': { id: number };
  'realm.updateProfileField': null;
  'realm.removeProfileField': null;
  'realm.reorderProfileFields': null;
  'realm.setProfileData': null;
};

export type ProfileFieldProtocol = ProtocolOf<ProfileFieldCommand, ProfileFieldReplies>;
