#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ChatError, realmAddress } from '@chat/protocol';
import { ADMIN_COMMANDS, UsageError } from './admin.js';
import { loadConfig } from './config.js';
import { readClusterConfig, readRole } from './cluster-config.js';
import { connectEdgeBackend } from './cluster-node.js';
import { startActorHostService } from './actor-host-service.js';
import { DEV_REALM } from './dev-realm.js';
import { DataFormatError } from './data-format.js';
import { startEmbeddedNode } from './node.js';
import { startServer } from './server.js';
import { startEdgeWorkers } from './edge-workers.js';
import { OUTBOX_USAGE, outboxCommand } from './outbox.js';
import { createLogger } from '@chat/edge';

const HELP = `Usage: team-chat <command> [options]

  start                 run the server (CHAT_ROLE: embedded by default, or a cluster's edge or actor-host;
                        PORT, DATA_DIR, CHAT_MODE and the rest from the environment)
${Object.entries(ADMIN_COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(21)} ${c.usage}`)
  .join('\n')}
  ${'outbox'.padEnd(21)} ${OUTBOX_USAGE}

Admin commands open DATA_DIR themselves: stop the server first (outbox excepted).
With CHAT_ROLE=edge and the cluster's settings they ask a running cluster instead.`;

async function start(): Promise<void> {
  const config = loadConfig();
  const role = readRole();
  const log = createLogger({ level: config.logLevel });
  if (role === 'actor-host') {
    const cluster = readClusterConfig();
    await startActorHostService(config, cluster, log);
    console.error(`Actor host ${cluster.hostId} of cluster '${cluster.namespace}' is serving its shards`);
    return; // Nest's shutdown hooks hand the shards off on SIGTERM and SIGINT.
  }
  const fatal = (err: Error) => {
    console.error(`\n${err.message}: stopping`);
    void server.close().finally(() => process.exit(1));
  };
  const server =
    role === 'embedded' && config.edgeWorkers > 0
      ? await startEdgeWorkers(config, log, fatal)
      : await startServer(
          config,
          role === 'edge' ? await connectEdgeBackend(config, readClusterConfig(), log) : undefined,
        );
  const workers = role === 'embedded' && config.edgeWorkers > 0 ? `, ${config.edgeWorkers} edge workers` : '';
  const where = role === 'edge' ? `cluster '${readClusterConfig().namespace}'` : `data: ${config.dataDir}${workers}`;
  // Lines for people go to stderr; stdout carries only the JSON log lines.
  console.error(`\nTeam chat server (${role}, ${config.mode} mode) at ${server.url}  ${where}`);
  if (config.mode === 'development') {
    const iago = await server.node.actors.ask(realmAddress(DEV_REALM.stringId), {
      type: 'realm.devApiKey',
      username: 'iago@zulip.com',
    });
    console.error(`Try:  curl -u ${iago.email}:${iago.api_key} ${server.url}/api/v1/users/me\n`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping…`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function admin(command: string, args: string[]): Promise<void> {
  if (command === 'outbox') return outboxCommand(args);
  const spec = ADMIN_COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command '${command}'\n\n${HELP}`);
  const { values } = parseArgs({
    args,
    options: {
      realm: { type: 'string' },
      'realm-name': { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      bot: { type: 'boolean' },
      revoke: { type: 'boolean' },
      count: { type: 'string' },
      start: { type: 'string' },
    },
  });
  const config = loadConfig();
  const log = createLogger({ level: 'warn' });
  // In a cluster the state lives in the engines and the actors are running: ask them as an edge does.
  const node =
    readRole() === 'embedded'
      ? await startEmbeddedNode(config, log)
      : await connectEdgeBackend(config, readClusterConfig(), log);
  try {
    console.log(JSON.stringify(await spec.run(node.actors, values), null, 2));
  } finally {
    await node.close();
  }
}

const [command, ...args] = process.argv.slice(2);
const run = command === 'start' ? start() : command && command !== 'help' ? admin(command, args) : undefined;
if (!run) {
  console.log(HELP);
} else {
  run.catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ChatError || err instanceof DataFormatError)
      console.error(`error: ${err.message}`);
    else console.error(err);
    process.exit(1);
  });
}
