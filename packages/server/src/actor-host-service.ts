import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import type { Logger } from '@chat/runtime';
import type { ClusterConfig } from './cluster-config.js';
import { startClusterHost, type ClusterHost } from './cluster-node.js';
import type { Config } from './config.js';

/**
 * The sharded actor transport as a NestJS transport strategy: `listen`
 * joins the cluster (leases, shards, NATS subjects), `close` hands the
 * shards off. Nest runs the process around it: start-up, shutdown hooks on
 * SIGTERM/SIGINT, and its logger for the lifecycle.
 */
export class ShardedActorTransport extends Server implements CustomTransportStrategy {
  private cluster: ClusterHost | undefined;

  constructor(
    private readonly config: Config,
    private readonly clusterConfig: ClusterConfig,
    private readonly log: Logger,
  ) {
    super();
  }

  listen(callback: (err?: unknown) => void): void {
    startClusterHost(this.config, this.clusterConfig, this.log).then(
      (cluster) => {
        this.cluster = cluster;
        callback();
      },
      (err: unknown) => callback(err),
    );
  }

  async close(): Promise<void> {
    await this.cluster?.close();
    this.cluster = undefined;
  }

  on(): never {
    throw new Error('the sharded actor transport has no events to listen to');
  }

  unwrap<T>(): T {
    if (!this.cluster) throw new Error('not listening');
    return this.cluster as T;
  }
}

/** The actor host has no controllers of Nest's own: every message goes to actors through the transport. */
class ActorHostModule {}
Module({})(ActorHostModule);

/** Runs an actor host as a Nest microservice; resolves once it serves its shards. */
export async function startActorHostService(
  config: Config,
  cluster: ClusterConfig,
  log: Logger,
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(ActorHostModule, {
    strategy: new ShardedActorTransport(config, cluster, log),
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  await app.listen();
  return app;
}
