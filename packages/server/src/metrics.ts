import { Counter, Gauge, type Registry } from 'prom-client';
import type { Admission } from '@chat/edge';
import type { EmbeddedNode } from './node.js';

/** The actor host's figures and its journal's, as GET /metrics shows them. */
export interface NodeFigures {
  live: number;
  activations: number;
  passivations: number;
  refusedFull: number;
  checkpoints: number;
  snapshots: number;
  fsyncs: number;
  records: number;
}

export const nodeFigures = (node: EmbeddedNode): NodeFigures => {
  const { live, activations, passivations, refusedFull, checkpoints, snapshots } = node.host.stats;
  const { fsyncs, records } = node.journal.stats;
  return { live, activations, passivations, refusedFull, checkpoints, snapshots, fsyncs, records };
};

/**
 * Runtime figures next to the edge's: live actors, refusals, journal syncs.
 * `read` gives them at each scrape (an edge worker asks the process holding the actors).
 */
export function registerNodeMetrics(registry: Registry, read: () => NodeFigures | Promise<NodeFigures>): void {
  let scrape: Promise<NodeFigures> | undefined;
  // One read per scrape, however many gauges ask: the first gauge starts it, the last one ends it.
  const figures = () => (scrape ??= Promise.resolve(read()).finally(() => setImmediate(() => (scrape = undefined))));
  const gauge = (name: string, help: string, pick: (f: NodeFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await figures()));
      },
    });
  gauge('chat_actors_live', 'Actors in memory', (f) => f.live);
  gauge('chat_actor_activations', 'Actors brought to life since start', (f) => f.activations);
  gauge('chat_actor_passivations', 'Idle actors dropped from memory since start', (f) => f.passivations);
  gauge('chat_mailbox_refusals', 'Messages refused by a full mailbox since start', (f) => f.refusedFull);
  gauge('chat_checkpoints', 'Partition checkpoints since start', (f) => f.checkpoints);
  gauge('chat_checkpoint_snapshots', 'Actor snapshots written by checkpoints since start', (f) => f.snapshots);
  gauge('chat_journal_fsyncs', 'Journal fsyncs since start', (f) => f.fsyncs);
  gauge('chat_journal_records', 'Journal records appended since start', (f) => f.records);
}

/** How well credential checks share messages to the realm: checks, and the messages that carried them. */
export function authMetrics(registry: Registry): (checks: number) => void {
  const checks = new Counter({
    name: 'chat_auth_checks_total',
    help: 'Credential checks sent to realms',
    registers: [registry],
  });
  const messages = new Counter({
    name: 'chat_auth_messages_total',
    help: 'Messages to realms that carried credential checks',
    registers: [registry],
  });
  return (n) => {
    checks.inc(n);
    messages.inc();
  };
}

/** What admission control took and refused (by reason), and the edge's load as it saw it. */
export function admissionMetrics(registry: Registry, admission: Admission): void {
  new Gauge({
    name: 'chat_admission_refused',
    help: 'Requests refused 503 by admission control since start, by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      for (const [reason, n] of Object.entries(admission.stats.refused)) this.set({ reason }, n);
    },
  });
  const load = (name: keyof Admission['load'], help: string) =>
    new Gauge({
      name: `chat_admission_${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`,
      help,
      registers: [registry],
      collect() {
        this.set(admission.load[name] ?? 0);
      },
    });
  load('inFlight', 'Requests (not long polls) being handled');
  load('queued', 'Requests waiting for a slot');
  load('polls', 'Long polls held');
  load('lagMs', 'How late the event loop runs (a moving average), in ms');
  load('quickestMs', 'The quickest request (not a long poll) answered in the last interval, in ms (0: none)');
  load('limit', 'The requests (not long polls) that may be in flight now, moved by their waits (0: no limit)');
}
