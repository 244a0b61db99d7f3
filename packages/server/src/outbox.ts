import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { readOutbox } from './mail.js';

export const OUTBOX_USAGE = '[--to ADDRESS]  mails kept in DATA_DIR/outbox (runs beside the server)';

/**
 * `team-chat outbox`: the mails the server "sent" in development (or
 * without EMAIL_HOST), oldest first, as JSON. It only reads files, so it
 * works while the server runs, unlike the commands that open the store.
 */
export async function outboxCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { to: { type: 'string' } } });
  const mails = await readOutbox(loadConfig().dataDir);
  const wanted = values.to?.toLowerCase();
  console.log(JSON.stringify(wanted ? mails.filter((m) => m.to.toLowerCase() === wanted) : mails, null, 2));
}
