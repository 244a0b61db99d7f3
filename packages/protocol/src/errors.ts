/**
 * Errors as data. Every failure that crosses an actor boundary or reaches a
 * client is a `ChatError` carrying one of the Zulip codes below. The table
 * says which HTTP status the edge answers with and whether retrying the same
 * request may help; nothing classifies errors by their message text.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, retriable: false },
  REQUEST_VARIABLE_MISSING: { status: 400, retriable: false },
  STREAM_DOES_NOT_EXIST: { status: 400, retriable: false },
  /** POST /channels/create with a name in use (the original's StreamExistsError, 409). */
  CHANNEL_ALREADY_EXISTS: { status: 409, retriable: false },
  STREAM_WILDCARD_MENTION_NOT_ALLOWED: { status: 400, retriable: false },
  /** The original's ReactionExistsError and ReactionDoesNotExistError (their own codes since feature level 193). */
  REACTION_ALREADY_EXISTS: { status: 400, retriable: false },
  REACTION_DOES_NOT_EXIST: { status: 400, retriable: false },
  TOPIC_WILDCARD_MENTION_NOT_ALLOWED: { status: 400, retriable: false },
  MOVE_MESSAGES_TIME_LIMIT_EXCEEDED: { status: 400, retriable: false },
  INVITATION_FAILED: { status: 400, retriable: false },
  UNAUTHORIZED_PRINCIPAL: { status: 400, retriable: false },
  INVALID_PUSH_DEVICE_TOKEN: { status: 400, retriable: false },
  INVALID_REMOTE_PUSH_DEVICE_TOKEN: { status: 400, retriable: false },
  PUSH_SERVICE_NOT_CONFIGURED: { status: 400, retriable: false },
  NO_ACTIVE_PUSH_DEVICE: { status: 400, retriable: false },
  /** The push bouncer could not be reached, or failed (502, as the original). */
  FAILED_TO_CONNECT_BOUNCER: { status: 502, retriable: true },
  INTERNAL_SERVER_ERROR_ON_BOUNCER: { status: 502, retriable: true },
  /** The bouncer refuses this server (credentials, plan, registration): an administrator must act. */
  ADMIN_ACTION_REQUIRED: { status: 403, retriable: false },
  BAD_EVENT_QUEUE_ID: { status: 400, retriable: false },
  CANNOT_DEACTIVATE_GROUP_IN_USE: { status: 400, retriable: false },
  CANNOT_DEACTIVATE_LAST_USER: { status: 400, retriable: false },
  UNAUTHORIZED: { status: 401, retriable: false },
  INVALID_API_KEY: { status: 401, retriable: false },
  USER_DEACTIVATED: { status: 401, retriable: false },
  REALM_DEACTIVATED: { status: 401, retriable: false },
  AUTHENTICATION_FAILED: { status: 401, retriable: false },
  PASSWORD_AUTH_DISABLED: { status: 401, retriable: false },
  FORBIDDEN: { status: 403, retriable: false },
  /** A session's write without a matching CSRF token (the original's CsrfFailureError, with `reason`). */
  CSRF_FAILED: { status: 403, retriable: false },
  NOT_FOUND: { status: 404, retriable: false },
  /**
   * The original's ResourceNotFoundError (a missing draft, saved snippet or
   * navigation view): status 404, yet the envelope's `code` is BAD_REQUEST.
   * A code of its own, because only the code crosses actor boundaries.
   */
  RESOURCE_NOT_FOUND: { status: 404, retriable: false, envelopeCode: 'BAD_REQUEST' },
  /**
   * The original's "Unable to access channel (…)." (a BAD_REQUEST to the client): a code of its own, so
   * that the edge tells it from the channel's other refusals (`authorization_errors_fatal`) by the code.
   */
  UNABLE_TO_ACCESS_CHANNEL: { status: 400, retriable: false, envelopeCode: 'BAD_REQUEST' },
  NONEXISTENT_SUBDOMAIN: { status: 404, retriable: false },
  REQUEST_TOO_LARGE: { status: 413, retriable: false },
  RATE_LIMIT_HIT: { status: 429, retriable: true },
  /** A mailbox or queue is full: the caller may retry later. */
  OVERLOADED: { status: 503, retriable: true },
  /** The actor did not answer before the request's deadline. */
  REQUEST_TIMEOUT: { status: 504, retriable: true },
  /** A real fault of the server; logged with the request id. */
  INTERNAL_SERVER_ERROR: { status: 500, retriable: false },
} as const satisfies Record<string, { status: number; retriable: boolean; envelopeCode?: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Extra fields some codes carry next to `code` and `msg`, e.g. `stream` or `var_name`. */
export type ErrorExtra = Record<string, unknown>;

/** The shape of an error on the wire, between actors or in a reply envelope. */
export interface WireError {
  code: ErrorCode;
  msg: string;
  extra?: ErrorExtra;
}

export class ChatError extends Error {
  override readonly name = 'ChatError';
  constructor(
    readonly code: ErrorCode,
    msg: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(msg);
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get retriable(): boolean {
    return ERROR_CODES[this.code].retriable;
  }

  /** The `code` a client sees in the error envelope: the code itself, unless its entry says otherwise. */
  get envelopeCode(): string {
    const entry: { status: number; envelopeCode?: string } = ERROR_CODES[this.code];
    return entry.envelopeCode ?? this.code;
  }

  toWire(): WireError {
    return Object.keys(this.extra).length > 0
      ? { code: this.code, msg: this.message, extra: this.extra }
      : { code: this.code, msg: this.message };
  }

  static fromWire(wire: WireError): ChatError {
    const code = wire.code in ERROR_CODES ? wire.code : 'INTERNAL_SERVER_ERROR';
    return new ChatError(code, wire.msg, wire.extra ?? {});
  }
}

export const isChatError = (err: unknown): err is ChatError => err instanceof ChatError;

/** Whether the same message may be sent again: it was not handled, or not known to be (the table says). */
export const isRetriable = (err: unknown): boolean => isChatError(err) && err.retriable;

/** Shorthands for the errors raised most often. */
export const badRequest = (msg: string, extra?: ErrorExtra) => new ChatError('BAD_REQUEST', msg, extra);
/** The original's OrganizationAdministratorRequiredError and OrganizationOwnerRequiredError. */
export const notAdministrator = () => new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
/** The original's StreamWithIDDoesNotExistError: a message sent (or scheduled) to a channel id the realm never had. */
export const noChannelWithId = (id: number) =>
  new ChatError('STREAM_DOES_NOT_EXIST', `Channel with ID '${id}' does not exist`, { stream_id: id });
/** A channel one may not subscribe anyone to because one cannot read it (the original's "unauthorized" channels). */
export const unableToAccessChannel = (name: string) =>
  new ChatError('UNABLE_TO_ACCESS_CHANNEL', `Unable to access channel (${name}).`);
export const isUnableToAccessChannel = (err: unknown) => isChatError(err) && err.code === 'UNABLE_TO_ACCESS_CHANNEL';
export const notOwner = () => new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
export const missingArgument = (name: string) =>
  new ChatError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, { var_name: name });
