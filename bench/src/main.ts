#!/usr/bin/env node
import { parseOptions, USAGE, UsageError } from './config/args.js';
import { rerunWithMoreFiles } from './limits.js';
import { run } from './run.js';
import type { Cleanups } from './target.js';

/** Set on Ctrl-C: what fails after it is the run being torn down, not news. */
let interrupted = false;

/** `npm run bench -- --target … --scenario …`; see bench/README.md. */
async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const options = parseOptions(argv);
  const rerun = await rerunWithMoreFiles();
  if (rerun !== undefined) process.exit(rerun);
  const cleanups: Cleanups = new Set();
  // Interrupted: stop the servers this run started (by pid) and remove their folders, then leave.
  const interrupt = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`\n${signal}: stopping the servers this run started…`);
    void (async () => {
      // Again while new ones appear: a server that was starting when the signal came registers during a pass.
      for (let pass = 0; pass < 10 && cleanups.size > 0; pass++) {
        await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      process.exit(130);
    })();
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
  // The interrupt handler exits once everything is stopped.
  if (interrupted) return;
  if (err instanceof UsageError) console.error(`error: ${err.message}\n\n${USAGE}`);
  else console.error(err);
  process.exit(1);
});
