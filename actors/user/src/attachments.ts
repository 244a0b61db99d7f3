import type { AttachmentProtocol, AttachmentReplies } from '@chat/protocol';
import type { UserHandlers } from './state.js';
import {
  attachmentOwnerKey,
  ChatError,
  decode,
  encode,
  realmOfKey,
  type ActorAddress,
  type Attachment,
  type AttachmentCommand,
  type AttachmentLink,
  type AttachmentOwnerRow,
  userOfKey,
} from '@chat/protocol';
import type { ActorContext, Decision, StoreWrite } from '@chat/runtime';
import type { UserEvent, UserState } from './state.js';

/**
 * The files a user uploaded, by path, and the messages that link each one.
 * The owner's actor is the authority on who may read an upload: a reader
 * other than the owner needs a linking message they can see.
 */
export interface StoredAttachment {
  id: number;
  name: string;
  size: number;
  /** Milliseconds. */
  createTime: number;
  links: StoredLink[];
}

export interface StoredLink {
  messageId: number;
  /** The conversation actor's key. */
  key: string;
  /** Milliseconds. */
  dateSent: number;
}

export type AttachmentEvent =
  | { type: 'attachmentAdded'; pathId: string; attachment: StoredAttachment }
  /** A message now links `linked` and no longer links `unlinked` (only paths the user owns). */
  | { type: 'attachmentsLinked'; link: StoredLink; linked: string[]; unlinked: string[] }
  | { type: 'attachmentRemoved'; pathId: string };

type Ctx = ActorContext<UserState>;
type Command = AttachmentCommand;

const attachmentsOf = (state: Readonly<UserState>) => state.attachments ?? {};

export function toAttachment(pathId: string, a: StoredAttachment): Attachment {
  return {
    id: a.id,
    name: a.name,
    path_id: pathId,
    size: a.size,
    create_time: a.createTime,
    messages: a.links.map((l) => ({ id: l.messageId, date_sent: l.dateSent })),
  };
}

export function applyAttachmentEvent(state: UserState, event: AttachmentEvent): void {
  const attachments = (state.attachments ??= {});
  switch (event.type) {
    case 'attachmentAdded':
      attachments[event.pathId] = event.attachment;
      state.lastAttachmentId = Math.max(state.lastAttachmentId ?? 0, event.attachment.id);
      return;
    case 'attachmentsLinked': {
      const { messageId } = event.link;
      for (const path of event.unlinked) {
        const a = attachments[path];
        if (a) a.links = a.links.filter((l) => l.messageId !== messageId);
      }
      for (const path of event.linked) {
        const a = attachments[path];
        if (a && !a.links.some((l) => l.messageId === messageId)) a.links.push({ ...event.link });
      }
      return;
    }
    case 'attachmentRemoved':
      delete attachments[event.pathId];
      return;
  }
}

export const attachmentHandlers: UserHandlers<AttachmentProtocol> = {
  'user.uploaded': (ctx, command) => {
    const known = attachmentsOf(ctx.state)[command.path_id];
    // A retried upload of the same path records nothing new.
    if (known) return { reply: toAttachment(command.path_id, known) };
    const attachment: StoredAttachment = {
      id: (ctx.state.lastAttachmentId ?? 0) + 1,
      name: command.name,
      size: command.size,
      createTime: ctx.now,
      links: [],
    };
    return {
      events: [{ type: 'attachmentAdded', pathId: command.path_id, attachment }],
      reply: toAttachment(command.path_id, attachment),
    };
  },
  'user.findUpload': (ctx, command) => {
    return findUpload(ctx, command.path_id);
  },
  'user.attachmentLinks': ({ state }, command) => {
    const links = attachmentsOf(state)[command.path_id]?.links;
    const reply: AttachmentLink[] | null = links?.map((l) => ({ message_id: l.messageId, key: l.key })) ?? null;
    return { reply };
  },
  'user.claimAttachments': (ctx, command) => {
    return claim(ctx.state, command);
  },
  'user.attachments': (ctx) => {
    return listAttachments(ctx);
  },
  'user.deleteAttachment': ({ state }, command) => {
    const found = Object.entries(attachmentsOf(state)).find(([, a]) => a.id === command.attachment_id);
    if (!found) throw new ChatError('BAD_REQUEST', 'Invalid attachment');
    const [pathId] = found;
    return { events: [{ type: 'attachmentRemoved', pathId }], reply: { path_id: pathId } };
  },
};

/** The owner of a path, from the row its owner's actor wrote. */
async function findUpload(ctx: Ctx, pathId: string): Promise<Decision<UserEvent, { owner: number } | null>> {
  const bytes = await ctx.store.get(attachmentOwnerKey(realmOfKey(ctx.address.key), pathId));
  return { reply: bytes ? { owner: decode<AttachmentOwnerRow>(bytes).owner } : null };
}

function claim(state: Readonly<UserState>, cmd: Extract<Command, { type: 'user.claimAttachments' }>) {
  const attachments = attachmentsOf(state);
  const linksIt = (path: string) => attachments[path]?.links.some((l) => l.messageId === cmd.message_id) ?? false;
  const linked = cmd.paths.filter((p) => attachments[p] !== undefined && !linksIt(p));
  const unlinked = (cmd.unlinked ?? []).filter((p) => !cmd.paths.includes(p) && linksIt(p));
  // Detached: owned, no longer linked by this message, and linked by no other message.
  const detached = (cmd.unlinked ?? [])
    .filter((p) => !cmd.paths.includes(p))
    .flatMap((p) => {
      const a = attachments[p];
      if (!a || a.links.some((l) => l.messageId !== cmd.message_id)) return [];
      return [toAttachment(p, { ...a, links: [] })];
    });
  const link: StoredLink = { messageId: cmd.message_id, key: cmd.key, dateSent: cmd.date_sent };
  const events: UserEvent[] =
    linked.length + unlinked.length > 0 ? [{ type: 'attachmentsLinked', link, linked, unlinked }] : [];
  return { events, reply: { detached } };
}

/** The user's attachments, newest first, and the whole realm's use, summed over its owner rows. */
async function listAttachments(ctx: Ctx): Promise<Decision<UserEvent, AttachmentReplies['user.attachments']>> {
  let used = 0;
  const { table, partition } = attachmentOwnerKey(realmOfKey(ctx.address.key), '');
  for await (const row of ctx.store.scan(table, partition)) {
    used += decode<AttachmentOwnerRow>(row.value).size;
  }
  const attachments = Object.entries(attachmentsOf(ctx.state))
    .map(([path, a]) => toAttachment(path, a))
    .sort((a, b) => b.id - a.id);
  return { reply: { attachments, upload_space_used: used } };
}

/** Keeps the attachment_owner rows in step with the user's attachments. */
export function attachmentRows(address: ActorAddress, event: UserEvent): StoreWrite[] {
  const realm = realmOfKey(address.key);
  switch (event.type) {
    case 'attachmentAdded': {
      const row: AttachmentOwnerRow = { owner: userOfKey(address.key), size: event.attachment.size };
      return [{ ...attachmentOwnerKey(realm, event.pathId), op: 'put', value: encode(row) }];
    }
    case 'attachmentRemoved':
      return [{ ...attachmentOwnerKey(realm, event.pathId), op: 'del' }];
    default:
      return [];
  }
}
