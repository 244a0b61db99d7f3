import type { Credentials } from './client.js';
import { basic } from './fuzz-encode.js';
import type { FuzzCase } from './fuzz.js';

/** What came back for one fuzz request; `problem` says why it fails the test, if it does. */
export interface FuzzAnswer {
  operation: string;
  label: string;
  /** 0 when no response came (hang, reset). */
  status: number;
  ms: number;
  problem?: string;
}

/** A browser session to send the member's requests with, under /json instead of /api/v1. */
export interface FuzzSession {
  cookie: string;
  csrfToken: string;
}

/**
 * Builds and sends one request with a deadline and judges the answer: no server error,
 * and a Zulip envelope, i.e. a JSON object with `result` success or error
 * matching the status, a string `msg`, and a string `code` on errors.
 */
export async function sendFuzz(
  baseUrl: string,
  fuzzCase: FuzzCase,
  credentials: Credentials,
  timeoutMs: number,
  session?: FuzzSession,
): Promise<FuzzAnswer> {
  const request = fuzzCase.build();
  const headers = { ...request.headers };
  if (request.auth === 'member' && session)
    Object.assign(headers, { cookie: session.cookie, 'x-csrftoken': session.csrfToken });
  else if (request.auth === 'member') headers['authorization'] = basic(credentials.email, credentials.apiKey);
  const started = Date.now();
  const answer = (status: number, problem?: string): FuzzAnswer => ({
    operation: request.operation,
    label: request.label,
    status,
    ms: Date.now() - started,
    ...(problem !== undefined && { problem }),
  });
  let response: Response;
  let text: string;
  try {
    const body = request.body === undefined ? undefined : new Uint8Array(Buffer.from(request.body));
    response = await fetch(`${baseUrl}${session ? '/json' : '/api/v1'}${request.path}`, {
      method: request.method,
      headers,
      ...(body && { body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError') return answer(0, `no answer within ${timeoutMs} ms`);
    return answer(0, `request failed: ${String((err as Error & { cause?: unknown }).cause ?? err)}`);
  }
  return answer(response.status, envelopeProblem(response.status, response.headers.get('content-type'), text));
}

export function envelopeProblem(status: number, contentType: string | null, text: string): string | undefined {
  if (status >= 500) return `server error ${status}: ${text.slice(0, 300)}`;
  if (!contentType?.startsWith('application/json')) return `content type ${contentType ?? 'missing'}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `not an object: ${text.slice(0, 200)}`;
  const { result, msg, code } = body as Record<string, unknown>;
  if (typeof msg !== 'string') return `msg is not a string: ${text.slice(0, 200)}`;
  if (status < 300) return result === 'success' ? undefined : `status ${status} with result ${String(result)}`;
  if (result !== 'error') return `status ${status} with result ${String(result)}`;
  if (typeof code !== 'string' || code === '') return `error without a code: ${text.slice(0, 200)}`;
  return undefined;
}

/** Runs `requests` with at most `concurrency` in flight, in order of start. */
export async function runPool<T, R>(items: readonly T[], concurrency: number, run: (item: T) => Promise<R>) {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
