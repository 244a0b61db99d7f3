import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger, lazyChild } from '../src/logger.js';

/** A logger at `level` whose lines land in `lines`, and a count of the children made from it. */
function counted(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ level }, sink);
  const made = { children: 0 };
  const child = logger.child;
  // Children inherit it, so grandchildren count too.
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    made.children++;
    return child.apply(this, args);
  } as typeof child;
  return { logger, lines, made };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

test('a lazy child makes no pino child until a line is written at an enabled level', async (t) => {
  const { logger, lines, made } = counted('warn');
  const log = lazyChild(logger, { requestId: 'r1' });
  const user = log.child({ userId: 7 });
  user.info({ quiet: true }, 'not written');
  t.true(user.isLevelEnabled('warn'));
  t.false(user.isLevelEnabled('info'));
  t.is(user.level, 'warn');
  t.is(made.children, 0);

  user.warn({ password: 'sesame' }, 'written');
  await flushed();
  t.is(made.children, 2, "the request's child and the user's");
  t.like(lines.at(-1), { requestId: 'r1', userId: 7, msg: 'written', password: '[redacted]' });
  log.error('also');
  await flushed();
  t.is(made.children, 2, 'the parent made for the grandchild is the one used');
  t.like(lines.at(-1), { requestId: 'r1', msg: 'also' });
  t.false('userId' in (lines.at(-1) ?? {}));

  const chatty = lazyChild(logger, { requestId: 'r2' }).child({ part: 'x' }, { level: 'info' });
  chatty.info('an option of the child is kept');
  await flushed();
  t.like(lines.at(-1), { requestId: 'r2', part: 'x', msg: 'an option of the child is kept' });
});
