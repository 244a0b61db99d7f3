import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The format of an embedded data folder, in `DATA_DIR/format`. 2: message
 * ids are dense per realm (`actors/realm/src/message-ids.ts`). Folders made
 * before have no such file: their message ids (about 2.45×10^14, milliseconds
 * times 4096) are beyond what Zulip clients take for "newer than any
 * message", and their message locations are filed under the old ids, so the
 * server refuses them with what to do rather than mixing the two.
 */
const FORMAT = '2';

export class DataFormatError extends Error {}

export async function checkDataFormat(dataDir: string): Promise<void> {
  const file = join(dataDir, 'format');
  const found = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  if (found === FORMAT) return;
  const used = await access(join(dataDir, 'journal')).then(
    () => true,
    () => false,
  );
  if (found === undefined && !used) return writeFile(file, `${FORMAT}\n`);
  throw new DataFormatError(
    found === undefined
      ? `${dataDir} was made by an older version of this server, whose message ids Zulip clients cannot use. ` +
          'Move it away or delete it (or set DATA_DIR to another folder) and start again: ' +
          'a new folder starts empty (with the development organization in development mode).'
      : `${dataDir} has data format ${found}, which this version of the server does not know (it writes ${FORMAT}).`,
  );
}
