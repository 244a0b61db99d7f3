import type { PersonalReplies } from '@chat/protocol';
import {
  ChatError,
  viewAdded,
  viewRemoved,
  viewUpdated,
  type NavigationView,
  type NavigationViewCommand,
  type QueueEvent,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toOwnQueues } from '../queues.js';
import type { UserEvent, UserState } from '../state.js';

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

/** Each command's decision, with the reply its protocol table names. */
export function decideView<K extends NavigationViewCommand['type']>(
  ctx: ActorContext<UserState>,
  command: Extract<NavigationViewCommand, { type: K }>,
): Decision<UserEvent, PersonalReplies[K]>;
export function decideView(ctx: ActorContext<UserState>, command: NavigationViewCommand): Decision<UserEvent> {
  const state = ctx.state;
  const views = listViews(state);
  const own = (event: QueueEvent) => toOwnQueues(ctx.address.key, state, [event]);
  const nameTaken = (name: string | null | undefined) => name != null && views.some((v) => v.name === name);
  // 404 either way; the reference shows code NOT_FOUND for an edit and BAD_REQUEST for a removal.
  const existing = (fragment: string, code: 'NOT_FOUND' | 'RESOURCE_NOT_FOUND' = 'RESOURCE_NOT_FOUND') => {
    const view = views.find((v) => v.fragment === fragment);
    if (!view) throw new ChatError(code, 'Navigation view does not exist.');
    return view;
  };
  switch (command.type) {
    case 'user.navigationViews':
      return { reply: { navigation_views: views } };
    case 'user.addNavigationView': {
      const view = command.view;
      if (views.some((v) => v.fragment === view.fragment) || nameTaken(view.name)) throw alreadyExists();
      return {
        events: [{ type: 'viewAdded', view }],
        tells: own(viewAdded(view)),
        reply: null,
      };
    }
    case 'user.editNavigationView': {
      const { fragment, is_pinned, name } = command;
      if (nameTaken(name)) throw alreadyExists();
      existing(fragment, 'NOT_FOUND');
      // The event names only what the request changed, as the original's `data`.
      const data = { ...(name !== undefined && { name }), ...(is_pinned !== undefined && { is_pinned }) };
      return {
        events: [{ type: 'viewEdited', fragment, ...data }],
        tells: own(viewUpdated(fragment, data)),
        reply: null,
      };
    }
    case 'user.removeNavigationView': {
      const { fragment } = existing(command.fragment);
      return {
        events: [{ type: 'viewRemoved', fragment }],
        tells: own(viewRemoved(fragment)),
        reply: null,
      };
    }
  }
}
