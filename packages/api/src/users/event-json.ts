import type { QueueSpec, RealmUserAddEvent } from '@chat/protocol';
import { gravatarUrl } from './json.js';

type Body = Record<string, unknown>;

/**
 * `realm_user` op `add` as one queue sees it: the RealmActor leaves the
 * avatar to the client (null); queues registered without `client_gravatar`
 * get the URL, as `GET /users` gives them.
 */
export function presentNewUser(added: RealmUserAddEvent & { id: number }, spec: QueueSpec): Body {
  const { access: _access, restricted: _restricted, ...event } = added;
  const person = event.person;
  if (spec.client_gravatar || person.avatar_url !== null) return event;
  const avatar_url = gravatarUrl(person.email, person.avatar_version);
  return { ...event, person: { ...person, avatar_url } };
}
