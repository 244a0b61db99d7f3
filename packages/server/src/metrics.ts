import { Counter, Gauge, type Registry } from 'prom-client';
import type { EmbeddedNode } from './node.js';

/** Runtime figures next to the edge's: live actors, refusals, journal syncs. */
export function registerNodeMetrics(registry: Registry, node: EmbeddedNode): void {
  const stats = node.host.stats;
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('chat_actors_live', 'Actors in memory', () => stats.live);
  gauge('chat_actor_activations', 'Actors brought to life since start', () => stats.activations);
  gauge('chat_actor_passivations', 'Idle actors dropped from memory since start', () => stats.passivations);
  gauge('chat_mailbox_refusals', 'Messages refused by a full mailbox since start', () => stats.refusedFull);
  gauge('chat_checkpoints', 'Partition checkpoints since start', () => stats.checkpoints);
  gauge('chat_journal_fsyncs', 'Journal fsyncs since start', () => node.journal.stats.fsyncs);
  gauge('chat_journal_records', 'Journal records appended since start', () => node.journal.stats.records);
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
