#!/usr/bin/env node
import { parseOptions, USAGE, UsageError } from './config/args.js';
import { run } from './run.js';
import type { Cleanups } from './target.js';

/** `npm run bench -- --target … --scenario …`; see bench/README.md. */
async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const options = parseOptions(argv);
  const cleanups: Cleanups = new Set();
  // Interrupted: stop the servers this run started (by pid) and remove their folders, then leave.
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the servers this run started…`);
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).then(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const output = await run(options, cleanups);
  console.log(output.table);
  console.log(`\nresult: ${output.files.json}\nchart:  ${output.files.chart}`);
  // Sockets of long polls may linger in the agent's timers; the run is over.
  process.exit(0);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) console.error(`error: ${err.message}\n\n${USAGE}`);
  else console.error(err);
  process.exit(1);
});
