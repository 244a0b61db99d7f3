import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { isAdministrator, notAdministrator, realmAddress, type RealmValue } from '@chat/protocol';
import { settingParams } from '../users/settings.js';
import { checkSettingValues } from '../users/settings-values.js';
import type { ApiOptions } from '../options.js';
import { fakeEmailDomain } from '../email-domain.js';

/**
 * Settings that are the user's own business, which the original keeps out
 * of the organization's defaults (security mails, marketing, the language
 * and time zone of the person, the consent to export one's private data:
 * its update_realm_user_settings_defaults takes none of them, and answers
 * them in `ignored_parameters_unsupported`).
 */
const NOT_DEFAULTS = new Set([
  'enable_login_emails',
  'enable_marketing_emails',
  'default_language',
  'timezone',
  'allow_private_data_export',
]);
const DefaultParams = Type.Object(
  Object.fromEntries(Object.entries(settingParams).filter(([name]) => !NOT_DEFAULTS.has(name))),
);

/** `PATCH /realm/user_settings_defaults`: administrators choose the settings new users start with. */
export function userDefaultsRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'PATCH',
      path: '/realm/user_settings_defaults',
      auth: 'required',
      params: DefaultParams,
      summary: 'Update realm-level defaults of user settings',
      description: 'The settings new users of the organization start with; each change reaches every user as an event.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        if (!isAdministrator(principal)) {
          throw notAdministrator();
        }
        const values = Object.fromEntries(
          Object.entries(params as Record<string, unknown>).filter(([, v]) => v !== undefined),
        ) as Record<string, RealmValue>;
        checkSettingValues(values);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.updateUserDefaults',
          actor_id: principal.user_id,
          values,
          domain: fakeEmailDomain(options.externalUrl, options.fakeEmailDomain),
        });
        return {};
      },
    }),
  ];
}
