import type { ExecutionContext } from 'ava';
import { assertResponse, type Reply } from '@chat/testkit';
import { refusal } from './replies.js';

type Answer = Reply<Record<string, unknown>> | Promise<Reply<Record<string, unknown>>>;

/**
 * The answer for a draft, saved snippet or navigation view the caller does
 * not have (someone else's or none at all), as the reference documents it:
 * HTTP 404 with code BAD_REQUEST (the original's ResourceNotFoundError) for
 * edit-draft, delete-draft, edit-saved-snippet, delete-saved-snippet and
 * remove-navigation-view; with code NOT_FOUND for edit-navigation-view.
 * The body must also fit the reference's 404 schema of the operation.
 */
export async function notFound(
  t: ExecutionContext<unknown>,
  reply: Answer,
  msg: string,
  [method, path]: [method: string, path: string],
  code: 'BAD_REQUEST' | 'NOT_FOUND' = 'BAD_REQUEST',
): Promise<void> {
  const got = await reply;
  t.deepEqual(await refusal(got), { status: 404, result: 'error', code, msg });
  assertResponse(method, path, 404, got.body);
}
