import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { linkifierPattern, templateVariables } from '@chat/markdown';
import { ChatError, isAdministrator, realmAddress, type Principal } from '@chat/protocol';

const LinkifierJson = Type.Object({ id: Type.Integer(), pattern: Type.String(), url_template: Type.String() });
const Definition = Type.Object({ pattern: Type.String(), url_template: Type.String() });

function requireAdmin(principal: Principal): void {
  if (!isAdministrator(principal))
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
}

/** The original answers a refused linkifier with its first error, and all of them by field in `errors`. */
const invalid = (field: string, msg: string) => new ChatError('BAD_REQUEST', msg, { errors: { [field]: [msg] } });

/**
 * The original's checks, in its order: the URL template is an RFC 6570
 * template, the pattern a regular expression, and the template's
 * variables are exactly the pattern's named groups.
 */
function checkLinkifier(pattern: string, urlTemplate: string): void {
  const variables = templateVariables(urlTemplate);
  if (!variables) throw invalid('url_template', 'Invalid URL template.');
  let groups: string[];
  try {
    groups = Object.keys(linkifierPattern(pattern).namedGroups());
  } catch (err) {
    throw invalid('__all__', `Bad regular expression: ${(err as Error).message}`);
  }
  const missingInPattern = variables.filter((v) => !groups.includes(v)).sort();
  if (missingInPattern.length)
    throw invalid('__all__', `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`);
  const missingInTemplate = groups.filter((g) => !variables.includes(g)).sort();
  if (missingInTemplate.length)
    throw invalid('__all__', `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`);
}

/** Linkifiers: everyone lists them; administrators add, change, remove and reorder them. */
export function linkifierRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/realm/linkifiers',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get linkifiers',
      description: 'The organization’s linkifiers, in the order they apply.',
      tags: ['server_and_organizations'],
      response: Type.Object({ linkifiers: Type.Array(LinkifierJson) }),
      async handler({ principal, actors }) {
        return { linkifiers: await actors.ask(realmAddress(principal.realm), { type: 'realm.linkifiers' }) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/realm/linkifiers',
      auth: 'required',
      params: Type.Object({ ordered_linkifier_ids: Type.Array(Type.Integer()) }),
      summary: 'Reorder linkifiers',
      description: 'Sets the order in which the organization’s linkifiers apply.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.reorderLinkifiers',
          actor_id: principal.user_id,
          ids: params.ordered_linkifier_ids,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/realm/filters',
      auth: 'required',
      params: Definition,
      summary: 'Add a linkifier',
      description: 'Adds a linkifier, applied after the existing ones.',
      tags: ['server_and_organizations'],
      response: Type.Object({ id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        checkLinkifier(params.pattern, params.url_template);
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.addLinkifier',
          actor_id: principal.user_id,
          pattern: params.pattern,
          url_template: params.url_template,
        });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/realm/filters/{filter_id}',
      auth: 'required',
      params: Type.Object({ filter_id: Type.Integer(), pattern: Type.String(), url_template: Type.String() }),
      summary: 'Update a linkifier',
      description: 'Changes a linkifier’s pattern and URL template; it keeps its place in the order.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        checkLinkifier(params.pattern, params.url_template);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.updateLinkifier',
          actor_id: principal.user_id,
          id: params.filter_id,
          pattern: params.pattern,
          url_template: params.url_template,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/realm/filters/{filter_id}',
      auth: 'required',
      params: Type.Object({ filter_id: Type.Integer() }),
      summary: 'Remove a linkifier',
      description: 'Removes one of the organization’s linkifiers.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.removeLinkifier',
          actor_id: principal.user_id,
          id: params.filter_id,
        });
        return {};
      },
    }),
  ];
}
