import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileJournal, InProcessTransport, LevelStore, LocalFileStore } from '@chat/embedded';
import { ActorHost, TransportActorClient, type ActorClient, type Logger, type Ports } from '@chat/runtime';
import { hostSettings } from './behaviors.js';
import { checkDataFormat } from './data-format.js';
import type { Config } from './config.js';
import { nodeFigures, registerNodeMetrics } from './metrics.js';
import type { Backend } from './server.js';

/** The one actor host of the embedded server, which owns every shard. */
export const EMBEDDED_HOST = 'embedded';

/** Everything behind the edge in one process: adapters, actor host and a client. */
export interface EmbeddedNode extends Backend {
  ports: Ports;
  actors: ActorClient;
  host: ActorHost;
  journal: FileJournal;
  close(): Promise<void>;
}

export async function startEmbeddedNode(config: Config, log: Logger): Promise<EmbeddedNode> {
  await mkdir(config.dataDir, { recursive: true });
  await checkDataFormat(config.dataDir);
  const store = await LevelStore.open(join(config.dataDir, 'store')).catch((err: unknown) => {
    throw new Error(`cannot open ${config.dataDir}: is another server using it? (${String(err)})`);
  });
  const journal = await FileJournal.open(join(config.dataDir, 'journal'));
  const files = await LocalFileStore.open(join(config.dataDir, 'uploads'));
  const transport = new InProcessTransport();
  // One host owns every shard, so a fan-out is one message however many shards its keys span.
  const actors = new TransportActorClient(transport, {
    shardCount: config.shardCount,
    defaultTimeoutMs: config.askTimeoutMs,
    ownerOf: () => EMBEDDED_HOST,
  });
  const host = new ActorHost({
    transport,
    journal,
    store,
    actors,
    ...hostSettings(config),
    hostId: EMBEDDED_HOST,
    // One process owns every shard; each start fences the one before it.
    epoch: (await store.claim({ shard: 0, epoch: 0 })) + 1,
    log,
  });
  await host.start();
  const node: EmbeddedNode = {
    ports: { transport, journal, store, files },
    files,
    metrics(registry) {
      registerNodeMetrics(registry, () => nodeFigures(node));
    },
    actors,
    host,
    journal,
    async close() {
      await host.stop();
      await transport.close();
      await journal.close();
      await files.close();
      await store.close();
    },
  };
  return node;
}
