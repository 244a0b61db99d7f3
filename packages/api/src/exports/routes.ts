import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, EXPORT_PUBLIC, isAdministrator, notAdministrator, userAddress } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { pageCaller, serveStored, type RawDeps, type RawMiddleware } from '../uploads/downloads.js';
import { exportKey, runExport } from './export.js';
import { exportTooLarge } from './size.js';

const RealmExport = Type.Object({
  id: Type.Integer(),
  acting_user_id: Type.Integer(),
  export_time: Type.Number(),
  deleted_timestamp: Type.Union([Type.Number(), Type.Null()]),
  failed_timestamp: Type.Union([Type.Number(), Type.Null()]),
  export_url: Type.Union([Type.String(), Type.Null()]),
  pending: Type.Boolean(),
  export_type: Type.Integer(),
});

/** Data exports of the organization: administrators ask for them, list them and see who consented. */
export function exportRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/export/realm',
      auth: 'required',
      params: Type.Object({
        export_type: Type.Optional(
          Type.Integer({
            default: EXPORT_PUBLIC,
            description: '1: public data; 2: also private data of those who consented.',
          }),
        ),
      }),
      response: Type.Object({ id: Type.Integer() }),
      summary: 'Create a data export',
      description:
        "Starts writing a .tar.gz of the organization's public data (see docs/architecture.md); " +
        'administrators hear `realm_export` as it starts and as it ends. An organization with more messages to ' +
        'export (public channels, and with export_type 2 the private channels and direct messages of those who ' +
        'consented) or uploaded bytes than the server allows (EXPORT_MAX_MESSAGES, EXPORT_MAX_UPLOAD_MIB) ' +
        'is refused: "Please request a manual export from" the ZULIP_ADMINISTRATOR address.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors, log }) {
        const caller = new CallerContext(actors, principal);
        const exportType = params.export_type ?? EXPORT_PUBLIC;
        // Counted only for an administrator; the realm refuses after its rate limit, as the original.
        const tooLarge =
          isAdministrator(principal) && (await exportTooLarge(actors, principal, exportType, options.exportLimits));
        const { id } = await actors.ask(caller.realm, {
          type: 'realm.requestExport',
          actor: principal,
          export_type: exportType,
          ...(tooLarge && { manual_export_from: options.exportLimits.administrator }),
        });
        // Answered at once; the file is written afterwards, page by page.
        void runExport(actors, options, principal, id, exportType, log).catch((err: unknown) =>
          log.error({ err, export: id }, 'export not reported'),
        );
        return { id };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/export/realm',
      auth: 'required',
      params: Type.Object({}),
      response: Type.Object({ exports: Type.Array(RealmExport) }),
      summary: 'Get all data exports',
      description: "The organization's data exports, pending, done and failed.",
      tags: ['server_and_organizations'],
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return { exports: await actors.ask(caller.realm, { type: 'realm.exports', viewer: principal }) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/export/realm/consents',
      auth: 'required',
      params: Type.Object({}),
      response: Type.Object({
        export_consents: Type.Array(Type.Object({ user_id: Type.Integer(), consented: Type.Boolean() })),
      }),
      summary: 'Get data export consent state',
      description: "Each active person's `allow_private_data_export` setting.",
      tags: ['server_and_organizations'],
      async handler({ principal, actors }) {
        if (!isAdministrator(principal)) throw notAdministrator();
        const caller = new CallerContext(actors, principal);
        const users = await actors.ask(caller.realm, { type: 'realm.listUsers' });
        const people = users.filter((u) => u.is_active && !u.is_bot);
        const export_consents = await Promise.all(
          people.map(async (u) => {
            const settings = await actors.ask(userAddress(principal.realm, u.user_id), { type: 'user.settings' });
            return { user_id: u.user_id, consented: settings.allow_private_data_export === true };
          }),
        );
        return { export_consents };
      },
    }),
  ];
}

/** `GET /exports/{realm}/{secret}/{name}`: an export's file, for the organization's administrators only. */
export function exportDownloads(deps: RawDeps): RawMiddleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !ctx.path.startsWith('/exports/')) return next();
    ctx.state.route = '/exports/{realm}/{secret}/{filename}';
    ctx.state.secretPath = true;
    const principal = await pageCaller(ctx, deps);
    const [realm, secret, name, ...rest] = ctx.path.slice('/exports/'.length).split('/');
    const valid = rest.length === 0 && realm === principal.realm && /^[0-9a-f]{32}$/.test(secret ?? '');
    if (!valid || !name || !/^[\w.-]+\.tar\.gz$/.test(name)) throw new ChatError('NOT_FOUND', 'File not found');
    if (!isAdministrator(principal)) throw notAdministrator();
    return serveStored(ctx, deps.options.files, exportKey(realm, secret!, name), name);
  };
}
