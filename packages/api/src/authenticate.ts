import { realmAddress, type Principal } from '@chat/protocol';
import type { Authenticate } from '@chat/edge';
import type { ApiOptions } from './options.js';

/** HTTP basic credentials are checked by the realm's actor, which holds the keys. */
export function authenticateWith(options: ApiOptions): Authenticate {
  return (credentials, req) =>
    req.actors.ask<Principal>(realmAddress(options.realmOf(req.request)), {
      type: 'realm.authenticate',
      email: credentials.email,
      api_key: credentials.apiKey,
    });
}
