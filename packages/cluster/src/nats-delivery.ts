import type { Msg } from 'nats';
import type { Logger, TransportHandler, TransportMessage } from '@chat/runtime';

/** Our own copy: nats.js keeps a reference to a payload until its next flush. */
export const copyBytes = (data: Uint8Array): Uint8Array => new Uint8Array(data);

/** The error of a payload the server would refuse (its `max_payload`), raised here instead of by a dead connection. */
export function payloadError(subject: string, data: Uint8Array, maxPayload: number): Error | undefined {
  if (data.length <= maxPayload) return undefined;
  return new Error(`payload of ${data.length} bytes on ${subject} exceeds the NATS max_payload of ${maxPayload}`);
}

export interface Delivery {
  /** Length of `<namespace>.`, cut from the wire subject: handlers see the runtime's subject. */
  prefixLength: number;
  maxPayload: number;
  log: Logger;
}

/**
 * Hands one NATS message to a handler as a `TransportMessage`. `respond` is
 * there only when the sender waits for a reply, and answers once. A handler
 * that throws (or whose promise rejects) is logged and nothing else: the
 * subscription goes on with the next message.
 */
export function deliver(ctx: Delivery, handler: TransportHandler, msg: Msg): void {
  const subject = msg.subject.slice(ctx.prefixLength);
  const message: { -readonly [K in keyof TransportMessage]: TransportMessage[K] } = { subject, data: msg.data };
  if (msg.reply) {
    let answered = false;
    message.respond = (reply) => {
      if (answered) return;
      answered = true;
      answer(ctx, msg, subject, reply);
    };
  }
  const failed = (err: unknown) =>
    ctx.log.error({ subject, err: err instanceof Error ? err.stack : String(err) }, 'transport handler threw');
  try {
    const result: unknown = handler(message);
    if (result instanceof Promise) result.catch(failed);
  } catch (err) {
    failed(err);
  }
}

function answer(ctx: Delivery, msg: Msg, subject: string, reply: Uint8Array): void {
  const tooLarge = payloadError(subject, reply, ctx.maxPayload);
  // The asker then times out; the log says why.
  if (tooLarge) return ctx.log.error({ subject, bytes: reply.length }, tooLarge.message);
  try {
    msg.respond(copyBytes(reply));
  } catch (err) {
    ctx.log.warn({ subject, err: (err as Error).message }, 'could not send a reply');
  }
}
