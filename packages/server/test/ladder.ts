import type { ChatClient, Params } from '@chat/testkit';

/**
 * The cases of the route ladder (routes.test.ts), which every documented
 * operation climbs. Each area's cases live in a file of their own, with
 * what they need made before the ladder runs.
 */
export interface LadderCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The path to call, when it needs something made before the ladder runs (a message id). */
  at?: () => string;
  /** The documented path, as in openapi.json. */
  template?: string;
  auth: boolean;
  /** Sent as multipart with one small file. */
  files?: boolean;
  /** That file, when not the default text file. */
  file?: { name: string; type: string; data: Uint8Array };
  valid: Params;
  /** A request with one bad parameter, and that parameter's name. */
  bad: { path?: string; params: Params; name: string; code?: string };
  /** Who makes the valid call, when it must not be the administrator (it would change their API key). */
  as?: () => ChatClient;
  /** The valid call's parameters, read just before it, when they depend on what exists then. */
  fresh?: (client: ChatClient) => Promise<Params>;
  /** Valid calls of cases with the same lock run one at a time (they change what another's `fresh` reads). */
  lock?: string;
}

/** The cases of one area, and what makes their targets before the ladder runs. */
export interface LadderSection {
  prepare?: (client: ChatClient) => Promise<void>;
  cases: LadderCase[];
}

/** A bad request that leaves out a required parameter. */
export const missing = (name: string, params: Params = {}) => ({ params, name, code: 'REQUEST_VARIABLE_MISSING' });

/** For an operation with no parameter to get wrong. */
export const NOTHING_BAD = { params: {}, name: '' };

/** A case on something made before the ladder runs: `at` gives its path then. */
export const onMade = (
  method: LadderCase['method'],
  template: string,
  at: () => string,
  valid: Params,
  bad: LadderCase['bad'],
): LadderCase => ({ method, path: template, template, at, auth: true, valid, bad });
