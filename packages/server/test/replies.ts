import type { ExecutionContext } from 'ava';
import { assertResponse, type ChatClient, type Reply } from '@chat/testkit';

/**
 * Calls and replies as the tests check them: a success against the
 * reference's schema for its operation, a failure as an error envelope with
 * the exact code and message.
 */
export type Body = Record<string, unknown>;
type Answer = Reply<Body> | Promise<Reply<Body>>;

/** A 200 checked against the reference's schema of `reference`, any other status for the error envelope. */
export function checked<T>(method: string, reference: string, reply: Reply<T>): Reply<T> {
  if (reply.status === 200) assertResponse(method, reference, reply.status, reply.body);
  else if (reply.body.result !== 'error' || typeof reply.body.code !== 'string' || typeof reply.body.msg !== 'string') {
    throw new Error(`not an error envelope: ${JSON.stringify(reply.body)}`);
  }
  return reply;
}

/** A call whose reply is `checked`. */
export async function call(client: ChatClient, method: string, path: string, params: Body = {}): Promise<Reply<Body>> {
  return checked(method, path, await client.call<Body>(method, path, params));
}

/** A call that must succeed; its body, checked against the reference. */
export async function ok(client: ChatClient, method: string, path: string, params: Body = {}): Promise<Body> {
  const reply = await call(client, method, path, params);
  if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/**
 * A reply that must be a success; its body, checked against the reference's
 * schema of `reference` (which names the operation where the path called is
 * an alias or encoded).
 */
export async function succeeds<T = Body>(method: string, reference: string, reply: Answer): Promise<T> {
  const got = await reply;
  if (got.status !== 200) throw new Error(`${method} ${reference}: ${got.status} ${JSON.stringify(got.body)}`);
  assertResponse(method, reference, 200, got.body);
  return got.body as T;
}

/** A successful reply's body, for operations whose bodies other tests check. */
export async function bodyOf<T = Body>(reply: Answer): Promise<T> {
  const got = await reply;
  if (got.status !== 200) throw new Error(`${got.status} ${JSON.stringify(got.body)}`);
  return got.body as T;
}

/** A failure's status, result, code and message, to compare as a whole. */
export async function refusal(reply: Answer) {
  const { status, body } = await reply;
  return { status, result: body.result, code: body.code, msg: body.msg };
}

/**
 * A reply that must be a 400 error with this code (and, when given, this
 * message); with `reference`, its body must fit the reference's error schema.
 */
export async function fails(
  t: ExecutionContext<unknown>,
  reply: Answer,
  code: string,
  msg?: string | RegExp,
  reference?: [method: string, path: string],
): Promise<Body> {
  const got = await reply;
  t.is(got.status, 400, JSON.stringify(got.body));
  t.is(got.body.result, 'error');
  t.is(got.body.code, code, got.body.msg);
  if (typeof msg === 'string') t.is(got.body.msg, msg);
  else if (msg) t.regex(got.body.msg, msg);
  if (reference) assertResponse(reference[0], reference[1], 400, got.body);
  return got.body;
}

/** A BAD_REQUEST with exactly this message. */
export const refused = (t: ExecutionContext<unknown>, reply: Answer, msg: string, reference?: [string, string]) =>
  fails(t, reply, 'BAD_REQUEST', msg, reference);
