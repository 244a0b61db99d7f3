import { expectOk, type Fixtures } from './matrix-fixtures.js';
import { adminsOnly, authenticated, badRequest, NOT_ADMIN, OK, type Operation } from './matrix-model.js';

const template = 'https://m.example/{id}';

/** A linkifier the administrator added, for one caller to change or remove. */
async function linkifier(fx: Fixtures): Promise<number> {
  const params = { pattern: `${fx.unique('m').replace(/\W/g, '')}-(?P<id>[0-9]+)`, url_template: template };
  return (await expectOk(fx.admin.post<{ id: number }>('/realm/filters', params))).id;
}

const NOT_FOUND = badRequest('Linkifier not found.');

/**
 * Linkifiers: everyone lists them; administrators change them (reference add-, update-, remove-, reorder-linkifier(s)).
 * And the welcome bot's test message, also for administrators.
 */
export const linkifierCases: Operation[] = [
  {
    method: 'GET',
    template: '/realm/linkifiers',
    request: () => ({ path: '/realm/linkifiers' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    // Each caller adds its own; the other realm's administrator may too.
    method: 'POST',
    template: '/realm/filters',
    request: (fx) => ({
      path: '/realm/filters',
      params: { pattern: `${fx.unique('add').replace(/\W/g, '')}-(?P<id>[0-9]+)`, url_template: template },
    }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    // The other realm has no such linkifier.
    method: 'PATCH',
    template: '/realm/filters/{filter_id}',
    request: async (fx) => ({
      path: `/realm/filters/${await linkifier(fx)}`,
      params: { pattern: `${fx.unique('changed').replace(/\W/g, '')}-(?P<id>[0-9]+)`, url_template: template },
    }),
    expect: adminsOnly(NOT_ADMIN, NOT_FOUND),
  },
  {
    method: 'DELETE',
    template: '/realm/filters/{filter_id}',
    request: async (fx) => ({ path: `/realm/filters/${await linkifier(fx)}` }),
    expect: adminsOnly(NOT_ADMIN, NOT_FOUND),
  },
  {
    // Every linkifier of the realm, reversed; the other realm has none of them.
    method: 'PATCH',
    template: '/realm/linkifiers',
    prepare: async (fx) => void (await linkifier(fx)),
    request: async (fx) => {
      const { linkifiers } = await expectOk(fx.admin.get<{ linkifiers: { id: number }[] }>('/realm/linkifiers'));
      return {
        path: '/realm/linkifiers',
        params: { ordered_linkifier_ids: JSON.stringify(linkifiers.map((l) => l.id).reverse()) },
      };
    },
    expect: adminsOnly(NOT_ADMIN, badRequest('The ordered list must enumerate all existing linkifiers exactly once')),
  },
  {
    // Reference test-welcome-bot-custom-message: administrators, each gets the message.
    method: 'POST',
    template: '/realm/test_welcome_bot_custom_message',
    request: () => ({ path: '/realm/test_welcome_bot_custom_message', params: { welcome_message_custom_text: 'Hi' } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
];
