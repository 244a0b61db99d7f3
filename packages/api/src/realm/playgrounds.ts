import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isAdministrator, notAdministrator, realmAddress, type Principal } from '@chat/protocol';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
/** The original's `check_pygments_language`. */
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;

function requireAdmin(principal: Principal): void {
  if (!isAdministrator(principal)) throw notAdministrator();
}

/** An RFC 6570 template whose only variable is `code`, in the original's words. */
function checkUrlTemplate(template: string): string {
  const expressions = template.match(/\{[^{}]*\}/g) ?? [];
  const rest = template.replace(/\{[^{}]*\}/g, '');
  if (rest.includes('{') || rest.includes('}')) throw bad('Invalid URL template.');
  const names = new Set<string>();
  for (const expression of expressions) {
    const body = expression.slice(1, -1).replace(/^[+#./;?&]/, '');
    for (const spec of body.split(',')) {
      const name = spec.replace(/(\*|:\d+)$/, '');
      if (!/^[A-Za-z0-9_.%]+$/.test(name)) throw bad('Invalid URL template.');
      names.add(name);
    }
  }
  if (names.size !== 1 || !names.has('code'))
    throw bad("'code' should be the only variable present in the URL template");
  return template;
}

/** Code playgrounds: administrators add and remove them; the register lists them for everyone. */
export function playgroundRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/realm/playgrounds',
      auth: 'required',
      params: Type.Object({ name: Type.String(), pygments_language: Type.String(), url_template: Type.String() }),
      summary: 'Add a code playground',
      description: 'Lets code blocks of one language open in an external playground.',
      tags: ['server_and_organizations'],
      response: Type.Object({ id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        const language = params.pygments_language.trim();
        if (!PYGMENTS_LANGUAGE.test(language)) throw bad('Invalid characters in pygments language');
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.addPlayground',
          actor_id: principal.user_id,
          playground: {
            name: params.name.trim(),
            pygments_language: language,
            url_template: checkUrlTemplate(params.url_template.trim()),
          },
        });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/realm/playgrounds/{playground_id}',
      auth: 'required',
      params: Type.Object({ playground_id: Type.Integer() }),
      summary: 'Remove a code playground',
      description: 'Removes one of the organization’s code playgrounds.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.removePlayground',
          actor_id: principal.user_id,
          playground_id: params.playground_id,
        });
        return {};
      },
    }),
  ];
}
