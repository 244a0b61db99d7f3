import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  apiRoutes,
  authenticateWith,
  confirmationPages,
  sessionAuthenticate,
  sessionPages,
  emojiData,
  unknownUserAvatar,
  emojiImages,
  avatarImages,
  FEATURE_LEVEL,
  tusUploads,
  TUS_PATH,
  uploadDownloads,
  bigBlueButtonJoin,
  exportDownloads,
  sweepOwedWebhooks,
  type ApiOptions,
} from '@chat/api';
import {
  Admission,
  LagMonitor,
  createEdgeApp,
  createLogger,
  createMetricsRegistry,
  RateLimiter,
  type EdgeState,
  type RateLimitStores,
} from '@chat/edge';
import { admissionMetrics, authMetrics } from './metrics.js';
import type { ActorClient, FileStore } from '@chat/runtime';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import { ensureDevRealm } from './dev-realm.js';
import { startEmbeddedNode } from './node.js';
import { realmResolver } from './realm-host.js';
import { httpPushBouncer } from './push.js';
import { createMailer } from './mail.js';
import { createHttpServer } from './client-errors.js';

/** What an edge serves from: the actors (in this process, or over the cluster's transport) and the file store. */
export interface Backend {
  actors: ActorClient;
  files: FileStore;
  /** Rate limit counts shared with other edges (a cluster's); without them each edge counts in memory. */
  rateLimitStores?: RateLimitStores;
  /** Adds the backend's own figures to GET /metrics. */
  metrics?(registry: Registry): void;
  /** Other edges serve beside this one (a cluster's, or the embedded server's edge workers). */
  shared?: boolean;
  /** How late the event loop of the process holding the actors runs, when it is another (an edge worker's). */
  actorLagMs?(): number;
  /** A long poll asks again this often (a cluster's queue may change host while a poll waits); unset: never. */
  pollSliceMs?: number;
  close(): Promise<void>;
}

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:9991 */
  url: string;
  node: Backend;
  close(): Promise<void>;
}

/**
 * Starts an edge over `backend`, or over an embedded node when none is given
 * (the default deployment): the development realm if wanted, then HTTP.
 * Closing the server closes the backend. `log`: where its lines go (default: stdout at `config.logLevel`).
 */
export async function startServer(
  config: Config,
  backend?: Backend,
  log = createLogger({ level: config.logLevel }),
): Promise<RunningServer> {
  const node = backend ?? (await startEmbeddedNode(config, log));
  if (config.mode === 'development') {
    const outcome = await ensureDevRealm(node.actors);
    log.info({ realm: 'zulip', outcome }, 'development realm ready');
  }
  // Bind first: with PORT=0 the URL clients are told about needs the real port.
  // Slow clients may not hold a connection forever (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS).
  const server = createHttpServer(
    { requestTimeoutMs: config.requestTimeoutMs, headersTimeoutMs: config.headersTimeoutMs },
    log,
  );
  // Longer than any client's idle keep-alive (undici: 4 s), so the client always
  // closes an idle connection first and never sends on one the server is closing.
  server.keepAliveTimeout = 65_000;
  await listen(server, config.port, config.bindHost);
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.bindHost}:${port}`;
  const externalUrl = config.externalUrl ?? url;
  const options: ApiOptions = {
    mode: config.mode,
    externalUrl,
    realmOf: realmResolver(externalUrl, config.defaultRealm),
    wildcardThreshold: config.wildcardThreshold,
    presenceEventUserLimit: config.presenceEventUserLimit,
    topicDeleteBudgetMs: config.topicDeleteBudgetMs,
    heartbeatMs: config.heartbeatMs,
    ...(node.pollSliceMs && { pollSliceMs: node.pollSliceMs }),
    ...(config.temporaryUrlKey && { temporaryUrlKey: Buffer.from(config.temporaryUrlKey) }),
    files: node.files,
    maxFileUploadSizeMib: config.maxFileUploadSizeMib,
    exportLimits: {
      maxMessages: config.exportMaxMessages,
      maxUploadBytes: config.exportMaxUploadMib * 1024 * 1024,
      administrator: config.zulipAdministrator,
    },
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    ...(config.pushBouncerUrl && { pushBouncer: httpPushBouncer(config.pushBouncerUrl) }),
    mailer: createMailer(config, externalUrl),
    invitationValidityMinutes: config.invitationValidityMinutes,
    ...(config.fakeEmailDomain && { fakeEmailDomain: config.fakeEmailDomain }),
    ...(config.bigBlueButtonUrl &&
      config.bigBlueButtonSecret && {
        bigBlueButton: { url: config.bigBlueButtonUrl, secret: config.bigBlueButtonSecret },
      }),
  };
  const metrics = createMetricsRegistry();
  node.metrics?.(metrics);
  const authenticate = authenticateWith(options, authMetrics(metrics));
  const raw = { options, actors: node.actors, authenticate };
  const rateLimiter = config.rateLimits && new RateLimiter(config.rateLimits, node.rateLimitStores);
  const loginLimits = rateLimiter
    ? { loginLimits: (ctx: { state: unknown }) => rateLimiter.forRequest(ctx.state as EdgeState) }
    : {};
  const tus = tusUploads({ ...raw, directory: join(config.dataDir, 'tus') });
  const lag = new LagMonitor();
  // An edge worker also refuses work when the loop of the actors it asks runs late.
  const actorLagMs = node.actorLagMs;
  const admission = new Admission(
    config.admission,
    actorLagMs
      ? {
          get lagMs() {
            return Math.max(lag.lagMs, actorLagMs());
          },
        }
      : lag,
  );
  admissionMetrics(metrics, admission);
  const app = createEdgeApp({
    routes: apiRoutes(options),
    actors: node.actors,
    authenticate,
    logger: log,
    metrics,
    limits: { bodyBytes: config.maxBodyBytes, uploadBytes: config.maxFileUploadSizeMib * 1024 * 1024 },
    info: { title: 'Team chat API', version: `feature level ${FEATURE_LEVEL}` },
    // Downloads, tus, pages and the emoji data answer bytes, not envelopes, so they are not routes.
    // Each is mounted under the prefixes of every path it answers (its own tests of the path), so
    // that other requests, the API's, do not pass through it.
    raw: [
      { under: ['/user_uploads/', '/api/v1/user_uploads/', '/json/user_uploads/'], handle: uploadDownloads(raw) },
      { under: [TUS_PATH], handle: tus.middleware },
      { under: ['/join/', '/accounts/confirm_new_email/'], handle: confirmationPages(raw) },
      { under: ['/calls/bigbluebutton/join'], handle: bigBlueButtonJoin(raw) },
      { under: ['/exports/'], handle: exportDownloads(raw) },
      { under: ['/accounts/', '/devlogin/'], handle: sessionPages({ ...raw, ...loginLimits }) },
      { under: ['/static/'], handle: emojiData() },
      { under: ['/user_avatars/'], handle: emojiImages(options) },
      { under: ['/user_avatars/'], handle: avatarImages(options) },
      { under: ['/static/'], handle: unknownUserAvatar() },
    ],
    ...(rateLimiter && { rateLimiter }),
    session: sessionAuthenticate(options),
    admission,
  });
  server.on('request', app.callback());
  // Calls to outgoing webhook bots that a stopped process left owed. Embedded, nothing else is
  // making calls, so every owed one is due at once; an edge beside others (a cluster's, an edge
  // worker) leaves the last minute's to those that may still be making them (OWED_WEBHOOK_GRACE_MS).
  const grace = config.owedWebhookGraceMs;
  const stopSweep = sweepOwedWebhooks(
    node.actors,
    config.defaultRealm,
    Date.now() - (node.shared ? grace : 0),
    options,
    log,
    Math.min(30_000, grace / 2),
    grace,
  );
  log.info({ port, mode: config.mode, dataDir: config.dataDir }, 'server listening');
  return {
    url,
    node,
    async close() {
      stopSweep();
      lag.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      tus.close();
      await node.close();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
