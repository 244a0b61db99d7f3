import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError } from '@chat/protocol';
import type { ApiOptions } from '../options.js';
import { pageCaller, type RawDeps, type RawMiddleware } from '../uploads/downloads.js';

/**
 * BigBlueButton calls, as the original makes them: `create` answers a link
 * to `/calls/bigbluebutton/join` carrying the meeting signed by this server
 * (so nobody can edit the link into another meeting on the same
 * BigBlueButton server); opening it creates the meeting on the
 * BigBlueButton server (its `create` call, checksummed with the shared
 * secret) and redirects to the server's `join` URL, as moderator for the
 * one who made the link and as viewer for everyone else.
 */
const NOT_CONFIGURED = 'BigBlueButton is not configured.';

interface Meeting {
  meeting_id: string;
  name: string;
  lock_settings_disable_cam: boolean;
  moderator: number;
}

/** Signs meetings; edges of a cluster share the key (TEMPORARY_URL_KEY), as any edge may serve the join. */
class MeetingSigner {
  private readonly key: Uint8Array;
  constructor(key: Uint8Array = randomBytes(32)) {
    // Its own key from the shared one, so that no upload token is ever a meeting.
    this.key = createHmac('sha256', key).update('bigbluebutton').digest();
  }

  sign(meeting: Meeting): string {
    const data = Buffer.from(JSON.stringify(meeting)).toString('base64url');
    return `${data}:${this.mac(data)}`;
  }

  read(signed: string): Meeting | undefined {
    const [data, mac, ...rest] = signed.split(':');
    if (data === undefined || mac === undefined || rest.length > 0) return undefined;
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.mac(data));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as Meeting;
  }

  private mac(data: string): string {
    return createHmac('sha256', this.key).update(data).digest('base64url');
  }
}

// One signer per server, shared by the route and the join page.
const signers = new WeakMap<ApiOptions, MeetingSigner>();
function signerOf(options: ApiOptions): MeetingSigner {
  let signer = signers.get(options);
  if (!signer) signers.set(options, (signer = new MeetingSigner(options.temporaryUrlKey)));
  return signer;
}

/** Python's `urlencode(..., quote_via=quote)`: spaces as %20, and `/` left alone. */
const encodeQuery = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${quote(k)}=${quote(v)}`)
    .join('&');
const quote = (text: string) =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, '/');

/** The BigBlueButton API's checksum: SHA-256 of the call's name, its query and the shared secret. */
export const bigBlueButtonChecksum = (call: string, query: string, secret: string) =>
  createHash('sha256')
    .update(call + query + secret)
    .digest('hex');

export function bigBlueButtonRoutes(options: ApiOptions): Route[] {
  const signer = signerOf(options);
  return [
    defineRoute({
      method: 'GET',
      path: '/calls/bigbluebutton/create',
      auth: 'required',
      params: Type.Object({
        meeting_name: Type.String({ description: 'Meeting name for the BigBlueButton video call.' }),
        voice_only: Type.Optional(
          Type.Boolean({ default: false, description: 'Whether the call is voice-only (cameras off for everyone).' }),
        ),
      }),
      response: Type.Object({ url: Type.String() }),
      summary: 'Create BigBlueButton video call',
      description: 'A link that creates the meeting on the configured BigBlueButton server when opened.',
      tags: ['channels'],
      handler({ params, principal }) {
        if (!options.bigBlueButton) throw new ChatError('BAD_REQUEST', NOT_CONFIGURED);
        const signed = signer.sign({
          meeting_id: `zulip-${randomInt(100_000_000_000, 999_999_999_999)}`,
          name: params.meeting_name,
          lock_settings_disable_cam: params.voice_only ?? false,
          moderator: principal.user_id,
        });
        return Promise.resolve({ url: `/calls/bigbluebutton/join?bigbluebutton=${encodeURIComponent(signed)}` });
      },
    }),
  ];
}

/** `GET /calls/bigbluebutton/join?bigbluebutton=...`: creates the meeting and redirects into it. */
export function bigBlueButtonJoin(deps: RawDeps): RawMiddleware {
  const signer = signerOf(deps.options);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/calls/bigbluebutton/join') return next();
    ctx.state.route = '/calls/bigbluebutton/join';
    ctx.state.secretPath = true;
    const principal = await pageCaller(ctx, deps);
    const server = deps.options.bigBlueButton;
    if (!server) throw new ChatError('BAD_REQUEST', NOT_CONFIGURED);
    const signed = new URL(ctx.req.url ?? '', 'http://x').searchParams.get('bigbluebutton');
    const meeting = signed === null ? undefined : signer.read(signed);
    if (!meeting) throw new ChatError('BAD_REQUEST', 'Invalid signature.');
    const base = server.url.endsWith('/') ? server.url : `${server.url}/`;
    const createQuery = encodeQuery({
      meetingID: meeting.meeting_id,
      name: meeting.name,
      lockSettingsDisableCam: meeting.lock_settings_disable_cam ? 'True' : 'False',
    });
    const createUrl = `${base}api/create?${createQuery}&checksum=${bigBlueButtonChecksum('create', createQuery, server.secret)}`;
    let text: string;
    try {
      const response = await fetch(createUrl, { signal: AbortSignal.timeout(15_000) });
      if (!response.ok) throw new Error(`status ${response.status}`);
      text = await response.text();
    } catch {
      throw new ChatError('BAD_REQUEST', 'Error connecting to the BigBlueButton server.');
    }
    const element = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
    if (element('messageKey') === 'checksumError') {
      throw new ChatError('BAD_REQUEST', 'Error authenticating to the BigBlueButton server.');
    }
    if (element('returncode') !== 'SUCCESS') {
      throw new ChatError('BAD_REQUEST', 'BigBlueButton server returned an unexpected error.');
    }
    const joinQuery = encodeQuery({
      meetingID: meeting.meeting_id,
      role: meeting.moderator === principal.user_id ? 'MODERATOR' : 'VIEWER',
      fullName: principal.full_name,
      createTime: element('createTime') ?? '',
    });
    ctx.status = 302;
    ctx.set(
      'Location',
      `${base}api/join?${joinQuery}&checksum=${bigBlueButtonChecksum('join', joinQuery, server.secret)}`,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = '';
    return undefined;
  };
}
