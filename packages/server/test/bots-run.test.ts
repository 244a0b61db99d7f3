import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withServer } from './context.js';
import { pythonEnvironment } from './python.js';
import { tempDir } from './support.js';

/**
 * A real bot: PyPI's zulip-bots (requirements-bots.txt, installed by
 * scripts/python-env.sh) runs its `helloworld` bot with the zuliprc of a
 * bot made through POST /bots, and answers a mention in a channel.
 */
const test = withServer(['hamlet']);

test('zulip-run-bot helloworld, with a bot made by POST /bots, answers a mention with beep boop', async (t) => {
  t.timeout(5 * 60_000);
  const { hamlet, server } = t.context;
  const python = await pythonEnvironment('requirements-bots.txt', 'zulip_bots');
  const short = `hello${Date.now()}`;
  const name = `Hello ${short}`;
  const made = await hamlet.post<{ user_id: number; api_key: string }>('/bots', { full_name: name, short_name: short });
  t.is(made.status, 200, JSON.stringify(made.body));
  const email = `${short}-bot@${new URL(server.server.url).hostname}`;
  const channel = `bots run ${short}`;
  const subscribed = await hamlet.post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: channel }]),
    principals: JSON.stringify([10, made.body.user_id]),
  });
  t.is(subscribed.status, 200, JSON.stringify(subscribed.body));

  const dir = await tempDir('zulip-bots');
  const zuliprc = join(dir, 'zuliprc');
  await writeFile(zuliprc, `[api]\nemail=${email}\nkey=${made.body.api_key}\nsite=${server.server.url}\n`);
  const bot = spawn(python, ['-m', 'zulip_bots.run', 'helloworld', '--config-file', zuliprc], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  bot.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  bot.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => bot.on('exit', resolve));
  try {
    const narrow = JSON.stringify([
      { operator: 'channel', operand: channel },
      { operator: 'sender', operand: email },
    ]);
    // The bot registers its queue when it starts: mention it until it answers (at most 2 minutes).
    let answer: { content: string; subject: string } | undefined;
    for (let attempt = 0; attempt < 60 && !answer; attempt++) {
      if (bot.exitCode !== null) break;
      if (attempt % 5 === 0) {
        const sent = await hamlet.post('/messages', {
          type: 'stream',
          to: channel,
          topic: 'greetings',
          content: `@**${name}** hello`,
        });
        t.is(sent.status, 200, JSON.stringify(sent.body));
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const found = await hamlet.get<{ messages: Array<{ content: string; subject: string }> }>('/messages', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow,
        apply_markdown: 'false',
      });
      answer = found.body.messages[0];
    }
    t.truthy(answer, `the bot did not answer; its output:\n${output.slice(-4000)}`);
    t.is(answer?.content, 'beep boop');
    t.is(answer?.subject, 'greetings');
  } finally {
    bot.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (bot.exitCode === null) bot.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
