import {
  ChatError,
  viewAdded,
  viewRemoved,
  viewUpdated,
  type NavigationView,
  type NavigationViewCommand,
  type PersonalProtocol,
  type QueueEvent,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import type { UserHandlers, UserState } from '../state.js';

/**
 * The user's left-sidebar navigation views, in the order they were added:
 * settings for built-in views (no name) and custom views (named).
 */
export type ViewsState = NavigationView[];

export type ViewEvent =
  | { type: 'viewAdded'; view: NavigationView }
  | { type: 'viewEdited'; fragment: string; is_pinned?: boolean; name?: string }
  | { type: 'viewRemoved'; fragment: string };

export const listViews = (state: Readonly<UserState>): NavigationView[] => state.navigationViews ?? [];

export function applyViewEvent(state: UserState, event: ViewEvent): void {
  const views = (state.navigationViews ??= []);
  switch (event.type) {
    case 'viewAdded':
      views.push(event.view);
      return;
    case 'viewEdited': {
      const view = views.find((v) => v.fragment === event.fragment);
      if (!view) return;
      if (event.is_pinned !== undefined) view.is_pinned = event.is_pinned;
      if (event.name !== undefined) view.name = event.name;
      return;
    }
    case 'viewRemoved':
      state.navigationViews = views.filter((v) => v.fragment !== event.fragment);
      return;
  }
}

const alreadyExists = () => new ChatError('BAD_REQUEST', 'Navigation view already exists.');

const ownQueues = (ctx: ActorContext<UserState>, event: QueueEvent) => toOwnQueues(ctx.address.key, ctx.state, [event]);
const nameTaken = (state: Readonly<UserState>, name: string | null | undefined) =>
  name != null && listViews(state).some((v) => v.name === name);

// 404 either way; the reference shows code NOT_FOUND for an edit and BAD_REQUEST for a removal.
function existing(state: Readonly<UserState>, fragment: string, code: 'NOT_FOUND' | 'RESOURCE_NOT_FOUND') {
  const view = listViews(state).find((v) => v.fragment === fragment);
  if (!view) throw new ChatError(code, 'Navigation view does not exist.');
  return view;
}

export const viewHandlers: UserHandlers<Pick<PersonalProtocol, NavigationViewCommand['type']>> = {
  'user.navigationViews': ({ state }) => ({ reply: { navigation_views: listViews(state) } }),
  'user.addNavigationView': (ctx, { view }) => {
    const taken = listViews(ctx.state).some((v) => v.fragment === view.fragment) || nameTaken(ctx.state, view.name);
    if (taken) throw alreadyExists();
    return { events: [{ type: 'viewAdded', view }], tells: ownQueues(ctx, viewAdded(view)), reply: null };
  },
  'user.editNavigationView': (ctx, { fragment, is_pinned, name }) => {
    if (nameTaken(ctx.state, name)) throw alreadyExists();
    existing(ctx.state, fragment, 'NOT_FOUND');
    // The event names only what the request changed, as the original's `data`.
    const data = { ...(name !== undefined && { name }), ...(is_pinned !== undefined && { is_pinned }) };
    return {
      events: [{ type: 'viewEdited', fragment, ...data }],
      tells: ownQueues(ctx, viewUpdated(fragment, data)),
      reply: null,
    };
  },
  'user.removeNavigationView': (ctx, command) => {
    const { fragment } = existing(ctx.state, command.fragment, 'RESOURCE_NOT_FOUND');
    return { events: [{ type: 'viewRemoved', fragment }], tells: ownQueues(ctx, viewRemoved(fragment)), reply: null };
  },
};
