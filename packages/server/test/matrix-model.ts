import type { ChatClient, Params, Reply } from '@chat/testkit';
import type { Fixtures } from './matrix-fixtures.js';

/**
 * The vocabulary of the permission matrix (permission-matrix.test.ts): who
 * calls, what they send, and what the spec and the reference say they get.
 */

/** The callers, in the order the matrix prints them. */
export const CALLER_ROLES = [
  'anonymous',
  'wrongKey',
  'deactivated',
  'bot',
  'guest',
  'member',
  'moderator',
  'administrator',
  'owner',
  'otherRealm',
] as const;
export type CallerRole = (typeof CALLER_ROLES)[number];

export interface Caller {
  role: CallerRole;
  client: ChatClient;
  /** The account behind the credentials; undefined without any. */
  userId: number | undefined;
  email: string | undefined;
  /** True when the credentials name an active account (of this realm or, for otherRealm, of its own). */
  signedIn: boolean;
}

/** One answer: a success (200) or an error envelope with this code (and, when given, message and extra fields). */
export interface Outcome {
  status: number;
  code?: string;
  msg?: string;
  extra?: Record<string, unknown>;
}

/**
 * A cell where the server does not (yet) give what the spec says: the test
 * asserts `actual`, so it fails the day the server is fixed and the cell
 * must be turned into `expected`.
 */
export interface Divergence {
  divergence: true;
  expected: Outcome;
  actual: Outcome;
  why: string;
}
export type Cell = Outcome | Divergence;

export const isDivergence = (cell: Cell): cell is Divergence => 'divergence' in cell;

export const OK: Outcome = { status: 200 };

/** A 400 error; the reference answers every refusal of a valid request with 400 (`JsonableError`). */
export const refused = (code: string, msg?: string, extra?: Record<string, unknown>): Outcome => ({
  status: 400,
  code,
  ...(msg !== undefined && { msg }),
  ...(extra && { extra }),
});
export const badRequest = (msg?: string) => refused('BAD_REQUEST', msg);

// Messages the reference and the original use for the same refusal on many operations.
export const NOT_ADMIN = refused('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
export const NO_BOTS = badRequest('This endpoint does not accept bot requests.');
export const NO_GUESTS = badRequest('Not allowed for guest users');
export const INVALID_MESSAGE = badRequest('Invalid message(s)');
export const INVALID_CHANNEL = badRequest('Invalid channel ID');
export const NO_SUCH_USER = badRequest('No such user');

export const diverges = (expected: Outcome, actual: Outcome, why: string): Divergence => ({
  divergence: true,
  expected,
  actual,
  why,
});

/**
 * The three callers whose credentials do not get them in, on every operation
 * that requires authentication (spec, Conventions 4 and Authentication 1):
 * no credentials is 401 UNAUTHORIZED with the original's "Not logged in"
 * message (reference, DELETE /attachments/{attachment_id} 401); a wrong key
 * is INVALID_API_KEY "Invalid API key" and a deactivated account
 * USER_DEACTIVATED "Account is deactivated" (reference, "Error handling":
 * both authentication errors, 401 since feature level 76).
 */
export const AUTH_FAILURES = {
  anonymous: { status: 401, code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' },
  wrongKey: { status: 401, code: 'INVALID_API_KEY', msg: 'Invalid API key' },
  deactivated: { status: 401, code: 'USER_DEACTIVATED', msg: 'Account is deactivated' },
} satisfies Record<string, Outcome>;

type SignedIn = Exclude<CallerRole, keyof typeof AUTH_FAILURES>;

/**
 * The cells of an operation that requires authentication: the three failures
 * above, `everyone` for each signed-in caller unless named.
 */
export function authenticated(cells: Partial<Record<SignedIn, Cell>> & { everyone: Cell }): Record<CallerRole, Cell> {
  const { everyone, ...named } = cells;
  const signedIn: SignedIn[] = ['bot', 'guest', 'member', 'moderator', 'administrator', 'owner', 'otherRealm'];
  return { ...AUTH_FAILURES, ...Object.fromEntries(signedIn.map((role) => [role, named[role] ?? everyone])) } as Record<
    CallerRole,
    Cell
  >;
}

/** Refused to everyone below an administrator (bot, guest, member, moderator), allowed to administrators and owners. */
export function adminsOnly(refusal: Cell, otherRealm: Cell, admins: Cell = OK): Record<CallerRole, Cell> {
  return authenticated({
    everyone: refusal,
    administrator: admins,
    owner: admins,
    otherRealm,
  });
}

/** What one caller sends. `path` is relative to /api/v1; `files` sends it as a multipart upload of one file. */
export interface Request {
  path: string;
  params?: Params;
  files?: boolean;
  /** The uploaded file, when not the default text file. */
  file?: { name: string; type: string; data: Uint8Array };
}

/** One row of the matrix: an operation, how each caller calls it, and what each gets. */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as openapi.json documents it. */
  template: string;
  /** Names a further row of the same operation, for a rule the first row does not reach. */
  variant?: string;
  /** Run once before the row, as the administrator. */
  prepare?: (fx: Fixtures) => Promise<void>;
  /** The request of one caller; may first make what this one call uses up (a message to delete). */
  request: (fx: Fixtures, caller: Caller) => Request | Promise<Request>;
  /** Run after each call, e.g. to adopt a new API key the call handed out. */
  after?: (fx: Fixtures, caller: Caller, reply: Reply) => void | Promise<void>;
  expect: Record<CallerRole, Cell>;
}
