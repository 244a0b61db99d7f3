/**
 * What the crash loop (crash-loop.test.ts) wrote, and what it may therefore
 * read back after a kill -9. A write that got a success reply is
 * acknowledged: it must be there (or a later acknowledged value). A write
 * that got no answer may or may not have happened, but then wholly. Every
 * value has one writer at a time, so "later" is well defined.
 */
export const KINDS = [
  'channel_message',
  'direct_message',
  'edit',
  'reaction',
  'subscription',
  'setting',
  'status',
  'draft',
] as const;
export type Kind = (typeof KINDS)[number];

/** How the writes of one kind ended: success, no answer (the kill), or an error reply. */
export type Tally = Record<Kind, { acked: number; unanswered: number; refused: number }>;

export const emptyTally = (): Tally =>
  Object.fromEntries(KINDS.map((k) => [k, { acked: 0, unanswered: 0, refused: 0 }])) as Tally;

/**
 * One value written again and again: the last value known to be durable
 * (acknowledged, or read back after a restart) and the values written since
 * without an answer. Unsettled until first read back: anything goes then.
 */
export class Register<T> {
  private known: { value: T } | undefined;
  private unsure: T[] = [];

  constructor(initial?: { value: T }) {
    this.known = initial;
  }

  get value(): T | undefined {
    return this.known?.value;
  }

  /** Whether a write is settled: no write without an answer since the last known value. */
  get certain(): boolean {
    return this.known !== undefined && this.unsure.length === 0;
  }

  acknowledge(value: T): void {
    this.known = { value };
    this.unsure = [];
  }

  unanswered(value: T): void {
    this.unsure.push(value);
  }

  /** Whether `seen` is a value the writes allow; `seen` becomes the known value either way. */
  settle(seen: T): boolean {
    const allowed = this.known === undefined || Object.is(seen, this.known.value) || this.unsure.includes(seen);
    this.acknowledge(seen);
    return allowed;
  }

  describe(): string {
    return `known ${JSON.stringify(this.known?.value)}, unanswered ${JSON.stringify(this.unsure)}`;
  }
}

/** A message: sent with its token as first word; `fate` says what is known about the send. */
export interface SentMessage {
  token: string;
  sender: number;
  /** 'channel', or the sorted participant ids of a direct message. */
  conversation: 'channel' | number[];
  fate: 'acked' | 'unanswered' | 'seen' | 'never';
  id?: number;
  version: number;
  content: Register<string>;
  /** By `user_id:emoji_name`. */
  reactions: Map<string, Register<boolean>>;
}

export interface ReadMessage {
  id: number;
  content: string;
  reactions: Array<{ emoji_name: string; user_id: number }>;
}

export const tokenOf = (content: string) => content.split(' ', 1)[0]!;

/** Everything written so far, and every breach of the rules found while reading it back. */
export class Ledger {
  readonly tally = emptyTally();
  readonly violations: string[] = [];
  readonly messages = new Map<string, SentMessage>();
  /** Every message id ever seen, with its token: an id must never name another message. */
  private readonly ids = new Map<number, string>();

  private readonly found = new Set<string>();

  /**
   * Records a breach once: a torn state found again after each later restart
   * is the same finding, named by `key` when its text may change.
   */
  violation(text: string, key = text): void {
    if (this.found.has(key)) return;
    this.found.add(key);
    this.violations.push(text);
  }

  /** Records who holds an id, reporting an id that changed hands. */
  claimId(scope: string, id: number, token: string, ids = this.ids): void {
    const holder = ids.get(id);
    if (holder !== undefined && holder !== token)
      this.violation(`${scope}: id ${id} reused by ${token} (was ${holder})`);
    ids.set(id, token);
  }

  /**
   * Checks one view of a conversation: the messages `expected` says it
   * holds, read as `read`. Returns what it saw by token, for `reconcile`.
   */
  checkView(view: string, read: ReadMessage[], expected: SentMessage[]): Map<string, ReadMessage> {
    const seen = new Map<string, ReadMessage>();
    for (const message of read) {
      const token = tokenOf(message.content);
      const sent = this.messages.get(token);
      if (seen.has(token))
        this.violation(`${view}: ${token} appears twice (ids ${seen.get(token)!.id}, ${message.id})`);
      seen.set(token, message);
      if (!sent || !expected.includes(sent)) {
        this.violation(`${view}: message ${message.id} (${message.content}) was never sent here`);
        continue;
      }
      if (sent.fate === 'never') this.violation(`${view}: ${token} showed up after it was found missing`);
      if (sent.id !== undefined && sent.id !== message.id) {
        this.violation(`${view}: ${token} has id ${message.id}, acknowledged as ${sent.id}`);
      }
      this.claimId('messages', message.id, token);
    }
    for (const sent of expected) {
      // Only acknowledged sends here: one seen before and missing from some view now is torn (`reconcile`).
      if (!seen.has(sent.token) && sent.fate === 'acked') {
        this.violation(`${view}: acknowledged message ${sent.token} (id ${sent.id}) is missing`);
      }
    }
    return seen;
  }

  /**
   * Brings the views of each message together: every view must agree (a
   * message is whole), the content and reactions must be allowed, and then
   * what was seen becomes what is known.
   */
  reconcile(
    messages: SentMessage[],
    views: Array<{ name: string; holds: SentMessage[]; seen: Map<string, ReadMessage> }>,
  ) {
    for (const sent of messages) {
      const looks = views
        .filter((v) => v.holds.includes(sent))
        .map((v) => ({ name: v.name, read: v.seen.get(sent.token) }));
      const present = looks.filter((l) => l.read);
      if (present.length === 0) {
        if (sent.fate === 'seen') this.violation(`${sent.token} (id ${sent.id}), seen before, is missing everywhere`);
        if (sent.fate === 'unanswered') sent.fate = 'never';
        continue;
      }
      if (present.length < looks.length) {
        const missing = looks.filter((l) => !l.read).map((l) => l.name);
        const send = sent.fate === 'unanswered' ? 'sent without answer' : 'acknowledged';
        this.violation(
          `${sent.token} (${send}) is torn: seen by ${present.map((l) => l.name).join(', ')}, not ${missing.join(', ')}`,
          `torn ${sent.token}`,
        );
      }
      const read = present[0]!.read!;
      for (const other of present.slice(1)) {
        if (
          JSON.stringify(reactionSet(other.read!)) !== JSON.stringify(reactionSet(read)) ||
          other.read!.content !== read.content
        ) {
          this.violation(`${sent.token} differs between ${present[0]!.name} and ${other.name}`);
        }
      }
      sent.fate = 'seen';
      sent.id = read.id;
      const before = sent.content.describe();
      if (!sent.content.settle(read.content))
        this.violation(`${sent.token}: content ${JSON.stringify(read.content)}, expected ${before}`);
      const reacted = new Set(reactionSet(read));
      for (const key of reacted)
        if (!sent.reactions.has(key)) this.violation(`${sent.token}: reaction ${key} never added`);
      for (const [key, register] of sent.reactions) {
        const before = register.describe();
        if (!register.settle(reacted.has(key)))
          this.violation(`${sent.token}: reaction ${key} is ${reacted.has(key)}, expected ${before}`);
      }
    }
  }
}

/** The kind of breach a violation's text reports, for the summary. */
export function classify(violation: string): string {
  if (/torn/.test(violation))
    return /\(acknowledged\)|acknowledged writes/.test(violation) ? 'torn after an ack' : 'torn, unanswered';
  if (/differs/.test(violation)) return 'torn';
  if (/showed up after/.test(violation)) return 'appeared late';
  if (/twice/.test(violation)) return 'repeated';
  if (/reused|acknowledged as/.test(violation)) return 'id changed or reused';
  if (/never (sent|saved|added)|nobody asked/.test(violation)) return 'never written';
  if (/missing|expected/.test(violation)) return 'lost';
  return 'other';
}

const reactionSet = (m: ReadMessage) => m.reactions.map((r) => `${r.user_id}:${r.emoji_name}`).sort();
