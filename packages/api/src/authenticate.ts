import { ChatError, realmAddress, type Principal } from '@chat/protocol';
import type { Authenticate, AuthRequest, Credentials } from '@chat/edge';
import type { ApiOptions } from './options.js';

/** The most checks one message to the realm carries. */
const MAX_AUTH_BATCH = 256;

interface Waiting {
  credentials: Credentials;
  req: AuthRequest;
  resolve(principal: Principal): void;
  reject(err: unknown): void;
}

/** One realm's checks on this edge: those waiting, the messages on their way, and the timer that stops the wait. */
interface Line {
  waiting: Waiting[];
  inFlight: number;
  timer?: NodeJS.Timeout;
}

/**
 * How long checks wait for a message on its way before they go anyway:
 * one that hangs (its realm's host died, and it waits out its timeout)
 * must not hold up every request of the edge.
 */
const MAX_WAIT_MS = 20;

/**
 * HTTP basic credentials are checked by the realm's actor, which holds the
 * keys, on every request: a new key or a deactivation counts at once. While
 * a message of checks is on its way to a realm, the checks that arrive wait
 * (up to MAX_WAIT_MS) and then go together in the next
 * (`realm.authenticateMany`, at most MAX_AUTH_BATCH): when thousands of long
 * polls return at once and poll again, one message each would overflow the
 * realm's mailbox. A lone request goes at once.
 */
export function authenticateWith(options: ApiOptions, onBatch?: (checks: number) => void): Authenticate {
  const lines = new Map<string, Line>();

  const send = async (realm: string, line: Line) => {
    clearTimeout(line.timer);
    line.timer = undefined;
    const batch = line.waiting.splice(0, MAX_AUTH_BATCH);
    line.inFlight++;
    onBatch?.(batch.length);
    try {
      // Sent on behalf of the first request of the batch (its request id is in the logs).
      const results = await batch[0]!.req.actors.ask(realmAddress(realm), {
        type: 'realm.authenticateMany',
        credentials: batch.map(({ credentials: c }) => ({ email: c.email, api_key: c.apiKey })),
      });
      batch.forEach((w, i) => {
        const result = results[i]!;
        if ('principal' in result) w.resolve(result.principal);
        else w.reject(ChatError.fromWire(result.error));
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
    line.inFlight--;
    if (line.waiting.length > 0) void send(realm, line);
    else if (line.inFlight === 0) lines.delete(realm);
  };

  return (credentials, req) =>
    new Promise<Principal>((resolve, reject) => {
      const realm = options.realmOf(req.request);
      let line = lines.get(realm);
      if (!line) lines.set(realm, (line = { waiting: [], inFlight: 0 }));
      line.waiting.push({ credentials, req, resolve, reject });
      if (line.inFlight === 0) void send(realm, line);
      else line.timer ??= setTimeout(() => void send(realm, line), MAX_WAIT_MS);
    });
}
