import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { untyped, type TestClient } from './untyped.js';
import { FileJournal, InProcessTransport, LevelStore } from '@chat/embedded';
import {
  ActorHost,
  TransportActorClient,
  typedClient,
  type AnyBehavior,
  type HostOptions,
  type Journal,
  type StateStore,
  NoResponders,
  type Transport,
} from '../src/index.js';

/** A whole embedded node over a data folder, restartable on the same folder. */
export class TestNode {
  transport!: InProcessTransport;
  journal!: FileJournal;
  store!: LevelStore;
  host!: ActorHost;
  /** When set, the next append to the journal fails (a disk error, a lost broker). */
  failNextAppend = false;
  /** Delays every store write, like a remote store under load. */
  storeDelayMs = 0;
  /** Delays every read of an actor's snapshot (its activation), like a remote store under load. */
  snapshotReadDelayMs = 0;
  /** Delays every journal append's acknowledgement, like a remote broker. */
  appendDelayMs = 0;
  /** Subjects that actors cannot reach while it says so (a host that is down); every other send is counted in `sent`. */
  unreachable: (subject: string) => boolean = () => false;
  readonly sent: string[] = [];
  client!: TestClient;
  private epoch = 0;

  private constructor(
    readonly dir: string,
    private readonly behaviors: AnyBehavior[],
    private readonly options: Partial<HostOptions>,
  ) {}

  static async start(behaviors: AnyBehavior[], options: Partial<HostOptions> = {}): Promise<TestNode> {
    const node = new TestNode(await mkdtemp(join(tmpdir(), 'runtime-test-')), behaviors, options);
    await node.boot();
    return node;
  }

  async boot(): Promise<void> {
    this.transport = new InProcessTransport();
    this.journal = await FileJournal.open(join(this.dir, 'journal'));
    this.store = await LevelStore.open(join(this.dir, 'store'));
    const inner = this.transport;
    const outward: Transport = {
      request: (subject, data, timeoutMs) => {
        if (this.unreachable(subject)) return Promise.reject(new NoResponders());
        this.sent.push(subject);
        return inner.request(subject, data, timeoutMs);
      },
      publish: (subject, data) => {
        if (this.unreachable(subject)) return;
        this.sent.push(subject);
        inner.publish(subject, data);
      },
      subscribe: (subject, handler, opts) => inner.subscribe(subject, handler, opts),
      close: () => inner.close(),
    };
    this.client = untyped(new TransportActorClient(outward, { shardCount: 4, defaultTimeoutMs: 2000 }));
    const journal = this.journal;
    const failing: Journal = {
      append: async (partition, records, fence) => {
        if (!this.failNextAppend) {
          const positions = await journal.append(partition, records, fence);
          if (this.appendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.appendDelayMs));
          return positions;
        }
        this.failNextAppend = false;
        return Promise.reject(new Error('simulated journal failure'));
      },
      read: (partition, after) => journal.read(partition, after),
      release: (partition, upTo) => journal.release(partition, upTo),
      close: () => journal.close(),
    };
    const store = this.store;
    const slow: StateStore = {
      get: async (key) => {
        if (key.table === 'snapshot' && this.snapshotReadDelayMs > 0)
          await new Promise((resolve) => setTimeout(resolve, this.snapshotReadDelayMs));
        return store.get(key);
      },
      scan: (table, partition, opts) => store.scan(table, partition, opts),
      claim: (fence) => store.claim(fence),
      close: () => store.close(),
      write: async (writes, opts) => {
        if (this.storeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.storeDelayMs));
        return store.write(writes, opts);
      },
    };
    this.host = new ActorHost({
      transport: this.transport,
      journal: failing,
      store: slow,
      actors: typedClient(this.client),
      behaviors: this.behaviors,
      shardCount: 4,
      epoch: ++this.epoch,
      ...this.options,
    });
    await this.host.start();
  }

  /** A clean stop: checkpoints, then closes the adapters. */
  async stop(): Promise<void> {
    await this.host.stop();
    await this.closeAdapters();
  }

  /** Like a crash: nothing is checkpointed; only what the journal holds survives. */
  async abandon(): Promise<void> {
    await this.closeAdapters();
  }

  async destroy(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private async closeAdapters(): Promise<void> {
    await this.transport.close();
    await this.journal.close();
    await this.store.close();
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The test function of a file whose tests start nodes (pushed to `t.context.nodes`): each test's are stopped and destroyed after it. */
export function nodeTest(): TestFn<{ nodes: TestNode[] }> {
  const test = anyTest as TestFn<{ nodes: TestNode[] }>;
  test.beforeEach((t) => {
    t.context.nodes = [];
  });
  test.afterEach.always(async (t) => {
    for (const node of t.context.nodes) {
      await node.stop().catch(() => undefined);
      await node.destroy();
    }
  });
  return test;
}
