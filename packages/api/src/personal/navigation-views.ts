import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type NavigationView } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';

/** The views every client has; a user may pin or unpin them but not rename them. */
const BUILT_IN_VIEWS = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
]);

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** Parameters are trimmed, and may not be blank once trimmed, as the original's. */
function trimmed(name: string, value: string): string {
  const text = value.trim();
  if (text === '') throw bad(`${name} cannot be blank`);
  return text;
}

const builtInNamed = () => bad('Built-in views cannot have a custom name.');

const ViewJson = Type.Object({
  fragment: Type.String(),
  is_pinned: Type.Boolean(),
  name: Type.Union([Type.String(), Type.Null()]),
});

export function navigationViewRoutes(_options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/navigation_views',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all navigation views',
      description: "The caller's configured navigation views: built-in ones they changed and custom ones.",
      tags: ['navigation_views'],
      response: Type.Object({ navigation_views: Type.Array(ViewJson) }),
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, { type: 'user.navigationViews' });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/navigation_views',
      auth: 'required',
      params: Type.Object({
        fragment: Type.String(),
        is_pinned: Type.Boolean(),
        name: Type.Optional(Type.String({ description: 'Custom views only.' })),
      }),
      summary: 'Add a navigation view',
      description: 'Configures a built-in view (no name) or adds a custom one (with a name).',
      tags: ['navigation_views'],
      async handler({ params, principal, actors }) {
        const fragment = trimmed('fragment', params.fragment);
        const name = params.name === undefined ? null : trimmed('name', params.name);
        if (BUILT_IN_VIEWS.has(fragment)) {
          if (name !== null) throw builtInNamed();
        } else if (name === null) {
          throw bad('Custom views must have a valid name.');
        }
        const caller = new CallerContext(actors, principal);
        const view: NavigationView = { fragment, is_pinned: params.is_pinned, name };
        await actors.ask(caller.me, { type: 'user.addNavigationView', view });
        return {};
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/navigation_views/{fragment}',
      auth: 'required',
      params: Type.Object({
        fragment: Type.String(),
        is_pinned: Type.Optional(Type.Boolean()),
        name: Type.Optional(Type.String()),
      }),
      summary: 'Update the navigation view',
      description: 'Pins or unpins a view, or renames a custom one.',
      tags: ['navigation_views'],
      async handler({ params, principal, actors }) {
        const fragment = trimmed('fragment', params.fragment);
        const name = params.name === undefined ? undefined : trimmed('name', params.name);
        if (BUILT_IN_VIEWS.has(fragment) && name !== undefined) throw builtInNamed();
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, {
          type: 'user.editNavigationView',
          fragment,
          ...(params.is_pinned !== undefined && { is_pinned: params.is_pinned }),
          ...(name !== undefined && { name }),
        });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/navigation_views/{fragment}',
      auth: 'required',
      params: Type.Object({ fragment: Type.String() }),
      summary: 'Remove a navigation view',
      description: 'Forgets a custom view, or the settings of a built-in one.',
      tags: ['navigation_views'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, { type: 'user.removeNavigationView', fragment: params.fragment.trim() });
        return {};
      },
    }),
  ];
}
