import { Gauge, type Registry } from 'prom-client';
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
