import type { ChatClient } from '@chat/testkit';
import { NOTHING_BAD, onMade, type LadderSection } from './ladder.js';

/**
 * The route ladder's case (routes.test.ts) for a file's temporary URL. Its
 * parameters are the file's path, so a bad one is a missing file (404), not
 * a 400 naming a parameter: the ladder climbs it with valid calls only.
 */
const made = { url: '' };

async function prepare(client: ChatClient): Promise<void> {
  const file = [{ name: 'ladder-download.txt', data: Buffer.from('ladder') }];
  made.url = (await client.upload<{ url: string }>('/user_uploads', file)).body.url;
}

export const downloadLadder: LadderSection = {
  prepare,
  cases: [onMade('GET', '/user_uploads/{realm_id_str}/{filename}', () => made.url, {}, NOTHING_BAD)],
};
