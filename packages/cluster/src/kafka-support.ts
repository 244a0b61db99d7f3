import kafkajs, { type logCreator } from 'kafkajs';
import type { Logger } from '@chat/runtime';

const { logLevel } = kafkajs;

const NAMESPACE = /^[a-z][a-z0-9_]{0,31}$/;
const ACTOR_TYPE = /^[a-zA-Z0-9_-]+$/;

export function checkNamespace(namespace: string): void {
  if (!NAMESPACE.test(namespace)) {
    throw new Error('namespace must be lowercase letters, digits or _, start with a letter, at most 32 characters');
  }
}

/** The topic of one actor type's journal: `<ns>.journal.<type>`. */
export function journalTopic(namespace: string, type: string): string {
  if (!ACTOR_TYPE.test(type)) throw new Error(`actor type ${JSON.stringify(type)} cannot name a Kafka topic`);
  return `${namespace}.journal.${type}`;
}

/**
 * kafkajs logs through its own interface; route it to ours. Its INFO lines
 * (every consumer join and leave) are noise at our scale, and its ERROR lines
 * are mostly answers it retries (NOT_LEADER on a new topic,
 * CONCURRENT_TRANSACTIONS right after a commit): warnings here, since every
 * failure that matters reaches us as a rejected call.
 */
export function kafkaLogCreator(log: Logger): logCreator {
  return () =>
    ({ level, label, log: entry }) => {
      if (level !== logLevel.ERROR && level !== logLevel.WARN) return;
      const { message, ...rest } = entry;
      log.warn({ kafka: label, ...rest }, message);
    };
}

/** The Kafka error types (`UNKNOWN_TOPIC_OR_PARTITION`, ...) and codes in an error and its causes (kafkajs wraps). */
export function kafkaErrorsIn(err: unknown): { types: string[]; codes: number[] } {
  const types: string[] = [];
  const codes: number[] = [];
  let e = err as { type?: unknown; code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    if (typeof e.type === 'string') types.push(e.type);
    if (typeof e.code === 'number') codes.push(e.code);
    e = e.cause as typeof e;
  }
  return { types, codes };
}

/**
 * Broker answers that mean "a newer producer took this transactional id":
 * INVALID_PRODUCER_EPOCH (47, what the request versions kafkajs speaks get)
 * and PRODUCER_FENCED (90, newer versions; unknown to kafkajs, so matched by
 * code).
 */
export function isFencingError(err: unknown): boolean {
  const { types, codes } = kafkaErrorsIn(err);
  return (
    types.includes('INVALID_PRODUCER_EPOCH') ||
    types.includes('PRODUCER_FENCED') ||
    codes.includes(47) ||
    codes.includes(90)
  );
}

export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * Runs `fn` again while it fails with an error kafkajs marks retriable, for
 * up to `timeoutMs`. Some admin calls give up at once on answers such as
 * NOT_LEADER_FOR_PARTITION, which a partition created a moment ago gives.
 */
export async function retrying<T>(fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetriable(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, 25 * attempt)));
    }
  }
}

/** Whether kafkajs marks the error, or one of its causes, retriable (a request timeout, a busy coordinator). */
export function isRetriable(err: unknown): boolean {
  for (let e = err as { retriable?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; depth++) {
    if (e.retriable === true) return true;
    e = e.cause as typeof e;
  }
  return false;
}
