import { realmAddress, type Principal as RealmPrincipal } from '@chat/protocol';
import type { Authenticate } from '@chat/edge';
import type { ApiOptions } from './options.js';

/** HTTP basic credentials are checked by the realm's actor, which holds the keys. */
export function authenticateWith(options: ApiOptions): Authenticate {
  return async (credentials, req) => {
    const realm = options.realmOf(req.request);
    const principal = await req.actors.ask<RealmPrincipal>(realmAddress(realm), {
      type: 'realm.authenticate',
      email: credentials.email,
      api_key: credentials.apiKey,
    });
    return {
      realmKey: principal.realm,
      userId: principal.user_id,
      email: principal.email,
      role: principal.role,
      isBot: principal.is_bot,
      fullName: principal.full_name,
    };
  };
}
