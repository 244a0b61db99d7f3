import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { readEmailSettings, type EmailSettings } from './mail-config.js';
import { DEFAULT_ADMISSION, type AdmissionSettings, type RateLimitSettings } from '@chat/edge';
import { readRateLimitSettings } from './rate-limit-config.js';
import { fakeEmailDomainProblem } from '@chat/api';

export type Mode = 'development' | 'production';

/** Every setting of a server process, read once from the environment. */
export interface Config {
  mode: Mode;
  port: number;
  /** Interface to listen on; loopback unless told otherwise. */
  bindHost: string;
  /** Where the embedded node keeps its journal, store and uploads. */
  dataDir: string;
  /** Base URL clients reach this server at (realm_url); the listening address if unset. */
  externalUrl: string | undefined;
  /** FAKE_EMAIL_DOMAIN: made-up addresses' domain when the external host cannot be one (see @chat/api email-domain.ts). */
  fakeEmailDomain: string | undefined;
  /** String id of the realm served when the Host names no other. */
  defaultRealm: string;
  shardCount: number;
  /**
   * Embedded: processes serving HTTP beside the one holding the actors (EDGE_WORKERS); 0: one process
   * does both. Default 1 on a machine of 2 cores or more (`defaultEdgeWorkers`), else 0.
   */
  edgeWorkers: number;
  askTimeoutMs: number;
  mailboxCapacity: number;
  passivateAfterMs: number;
  /**
   * A journal partition is checkpointed once its records since the last checkpoint reach
   * max(CHECKPOINT_EVERY, CHECKPOINT_PER_ACTOR × actors changed since), capped at CHECKPOINT_MAX_RECORDS...
   */
  checkpointEvery: number;
  checkpointPerActor: number;
  checkpointMaxRecords: number;
  /** ...and at the latest this long after its first unsaved change. */
  checkpointAfterMs: number;
  maxBodyBytes: number;
  /** A client must have sent its whole request (headers and body) within this long, or is cut off. */
  requestTimeoutMs: number;
  /** ... and its headers within this long (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** The largest file an upload may hold, in MiB (the original's `max_file_upload_size_mib`). */
  maxFileUploadSizeMib: number;
  /** A data export is refused above this many messages to export (the original's MAX_MESSAGE_HISTORY, 250000)... */
  exportMaxMessages: number;
  /** ...or this many MiB of uploaded files (the original's MAX_UPLOAD_QUOTA, 20 GiB). */
  exportMaxUploadMib: number;
  /** The address such a refusal names for a manual export (the original's ZULIP_ADMINISTRATOR). */
  zulipAdministrator: string;
  /** Wildcard mentions reaching more people than this need permission (the original's 15). */
  wildcardThreshold: number;
  /** Realms with more active users than this send no presence events (the original's 100); clients poll. */
  presenceEventUserLimit: number;
  /** How long one topic deletion runs before answering `complete: false`. */
  topicDeleteBudgetMs: number;
  /** A waiting event poll is answered with a heartbeat after this long. */
  heartbeatMs: number;
  /** An event queue nobody fetched from for this long is collected. */
  queueIdleMs: number;
  /** An event queue with this many unacknowledged events is collected. */
  queueMaxEvents: number;
  logLevel: string;
  /** Where mobile push notifications are POSTed (`PUSH_BOUNCER_URL`); unset: push notifications are off. */
  pushBouncerUrl: string | undefined;
  /** Outgoing mail (EMAIL_HOST and friends); see mail-config.ts. */
  email: EmailSettings;
  /** Signs temporary upload URLs (TEMPORARY_URL_KEY, hex or text); edges of a cluster must share it. */
  temporaryUrlKey: string | undefined;
  /** How long an invitation is valid when the inviter does not say (the original's 14400 minutes). */
  invitationValidityMinutes: number;
  /** A BigBlueButton server's API base URL and shared secret (BIG_BLUE_BUTTON_URL, BIG_BLUE_BUTTON_SECRET); both or calls are off. */
  bigBlueButtonUrl: string | undefined;
  bigBlueButtonSecret: string | undefined;
  /** Outgoing webhooks may call private and loopback addresses (always so in development mode). */
  allowPrivateWebhooks: boolean;
  /** A cluster edge resumes an owed outgoing webhook call only once it is this old (it may be in another edge's hands). */
  owedWebhookGraceMs: number;
  /** API rate limits (RATE_LIMITING, RATE_LIMIT_*; see rate-limit-config.ts); undefined: off. */
  rateLimits: RateLimitSettings | undefined;
  /** Admission control at the edge (ADMISSION_*; see readAdmission): what an overloaded edge refuses. */
  admission: AdmissionSettings;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}

/**
 * One edge worker when the machine has a second core for it: the HTTP edge's
 * loop is then not the one fanning out, so a send's reply and a refusal do
 * not wait for a fan-out (bench/README.md, "Edge workers"). One core: one process.
 */
export function defaultEdgeWorkers(cores = availableParallelism()): number {
  return cores >= 2 ? 1 : 0;
}

/** ADMISSION_MAX_IN_FLIGHT=0 turns admission control off. Defaults: DEFAULT_ADMISSION. */
function readAdmission(env: NodeJS.ProcessEnv): AdmissionSettings {
  const d = DEFAULT_ADMISSION;
  return {
    maxInFlight: integer(env, 'ADMISSION_MAX_IN_FLIGHT', d.maxInFlight),
    maxQueued: integer(env, 'ADMISSION_MAX_QUEUED', d.maxQueued),
    maxWaitMs: integer(env, 'ADMISSION_MAX_WAIT_MS', d.maxWaitMs),
    maxPolls: integer(env, 'ADMISSION_MAX_POLLS', d.maxPolls),
    maxLagMs: integer(env, 'ADMISSION_MAX_LAG_MS', d.maxLagMs),
    targetMs: integer(env, 'ADMISSION_TARGET_MS', d.targetMs),
    intervalMs: Math.max(1, integer(env, 'ADMISSION_INTERVAL_MS', d.intervalMs)),
    deadlineMs: integer(env, 'ADMISSION_DEADLINE_MS', d.deadlineMs),
    retryAfterSeconds: integer(env, 'ADMISSION_RETRY_AFTER_SECONDS', d.retryAfterSeconds),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const mode: Mode = (env.CHAT_MODE ?? 'development') === 'production' ? 'production' : 'development';
  if (env.CHAT_MODE && !['development', 'production'].includes(env.CHAT_MODE)) {
    throw new Error(`CHAT_MODE must be 'development' or 'production', got '${env.CHAT_MODE}'`);
  }
  const port = integer(env, 'PORT', 9991);
  const bindHost = env.BIND_HOST ?? '127.0.0.1';
  const config: Config = {
    mode,
    port,
    bindHost,
    dataDir: resolve(env.DATA_DIR ?? 'data'),
    externalUrl: env.EXTERNAL_URL || undefined,
    fakeEmailDomain: env.FAKE_EMAIL_DOMAIN || undefined,
    defaultRealm: env.DEFAULT_REALM ?? 'zulip',
    shardCount: integer(env, 'SHARD_COUNT', 16),
    edgeWorkers: integer(env, 'EDGE_WORKERS', defaultEdgeWorkers()),
    askTimeoutMs: integer(env, 'ASK_TIMEOUT_MS', 10_000),
    mailboxCapacity: integer(env, 'MAILBOX_CAPACITY', 1000),
    passivateAfterMs: integer(env, 'PASSIVATE_AFTER_MS', 5 * 60_000),
    checkpointEvery: integer(env, 'CHECKPOINT_EVERY', 1000),
    checkpointPerActor: integer(env, 'CHECKPOINT_PER_ACTOR', 8),
    checkpointMaxRecords: integer(env, 'CHECKPOINT_MAX_RECORDS', 50_000),
    checkpointAfterMs: integer(env, 'CHECKPOINT_AFTER_MS', 10_000),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 60_000),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 20_000),
    // MAX_UPLOAD_MIB is the earlier name of the same setting.
    maxFileUploadSizeMib: integer(env, 'MAX_FILE_UPLOAD_SIZE_MIB', integer(env, 'MAX_UPLOAD_MIB', 25)),
    exportMaxMessages: integer(env, 'EXPORT_MAX_MESSAGES', 250_000),
    exportMaxUploadMib: integer(env, 'EXPORT_MAX_UPLOAD_MIB', 20 * 1024),
    zulipAdministrator: env.ZULIP_ADMINISTRATOR || 'zulip-admin@example.com',
    wildcardThreshold: integer(env, 'WILDCARD_MENTION_THRESHOLD', 15),
    presenceEventUserLimit: integer(env, 'USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS', 100),
    topicDeleteBudgetMs: integer(env, 'TOPIC_DELETE_BUDGET_MS', 10_000),
    heartbeatMs: integer(env, 'EVENT_HEARTBEAT_MS', 60_000),
    queueIdleMs: integer(env, 'EVENT_QUEUE_IDLE_MS', 10 * 60_000),
    queueMaxEvents: integer(env, 'EVENT_QUEUE_MAX_EVENTS', 10_000),
    logLevel: env.LOG_LEVEL ?? 'info',
    pushBouncerUrl: env.PUSH_BOUNCER_URL || undefined,
    email: readEmailSettings(env),
    invitationValidityMinutes: integer(env, 'INVITATION_LINK_VALIDITY_MINUTES', 14_400),
    temporaryUrlKey: env.TEMPORARY_URL_KEY || undefined,
    bigBlueButtonUrl: env.BIG_BLUE_BUTTON_URL || undefined,
    bigBlueButtonSecret: env.BIG_BLUE_BUTTON_SECRET || undefined,
    allowPrivateWebhooks: mode === 'development' || env.OUTGOING_WEBHOOKS_ALLOW_PRIVATE === 'true',
    owedWebhookGraceMs: Math.max(1000, integer(env, 'OWED_WEBHOOK_GRACE_MS', 60_000)),
    rateLimits: readRateLimitSettings(env),
    admission: readAdmission(env),
    ...overrides,
  };
  const fakeDomainProblem = config.fakeEmailDomain && fakeEmailDomainProblem(config.fakeEmailDomain);
  if (fakeDomainProblem) throw new Error(fakeDomainProblem);
  // Message ids keep the shard in 6 bits (see actors/channel/src/ids.ts).
  if (config.shardCount < 1 || config.shardCount > 64) throw new Error('SHARD_COUNT must be between 1 and 64');
  // Node refuses a headers timeout longer than the whole request's (0 turns the request timeout off).
  if (config.requestTimeoutMs > 0 && config.headersTimeoutMs > config.requestTimeoutMs)
    throw new Error('HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS');
  return config;
}
