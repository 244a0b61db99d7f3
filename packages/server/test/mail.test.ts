import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import test from 'ava';
import { loadConfig } from '../src/config.js';
import { createMailer } from '../src/mail.js';
import { MAIN, TestServer } from './support.js';

const run = promisify(execFile);

/** Just enough of an SMTP server to receive one message per connection, without STARTTLS or AUTH. */
function fakeSmtp(): Promise<{
  server: Server;
  port: number;
  received: Array<{ from: string; to: string[]; data: string }>;
}> {
  const received: Array<{ from: string; to: string[]; data: string }> = [];
  const server = createServer((socket: Socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { from: '', to: [], data: '' };
            socket.write('250 queued\r\n');
          } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'MAIL') current.from = line;
        if (verb === 'RCPT') current.to.push(line);
        if (verb === 'DATA') inData = true;
        if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write(verb === 'DATA' ? '354 go ahead\r\n' : '250 ok\r\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, received })),
  );
}

test('in production with EMAIL_HOST, mail goes out by SMTP from NOREPLY_EMAIL_ADDRESS', async (t) => {
  const smtp = await fakeSmtp();
  t.teardown(() => smtp.server.close());
  const config = loadConfig({
    CHAT_MODE: 'production',
    EMAIL_HOST: '127.0.0.1',
    EMAIL_PORT: String(smtp.port),
    EMAIL_USE_TLS: 'false',
    NOREPLY_EMAIL_ADDRESS: 'chat@acme.test',
  });
  const mailer = createMailer(config, 'https://chat.acme.test');
  await mailer.send({ to: 'ann@example.com', subject: 'Hello there', text: 'A link:\nhttps://chat.acme.test/join/x/' });
  t.is(smtp.received.length, 1);
  const mail = smtp.received[0]!;
  t.regex(mail.from, /<chat@acme\.test>/);
  t.deepEqual(mail.to.length, 1);
  t.regex(mail.to[0]!, /<ann@example\.com>/);
  t.regex(mail.data, /^Subject: Hello there$/m);
  t.true(mail.data.includes('https://chat.acme.test/join/x/'));
});

test('the outbox command lists mails while the server runs', async (t) => {
  const server = await TestServer.start();
  t.teardown(() => server.stop());
  const hamlet = await server.login('hamlet@zulip.com');
  const sent = await hamlet.post('/invites', { invitee_emails: 'outboxed@example.com', stream_ids: '[]' });
  t.is(sent.status, 200);
  const env = { ...process.env, DATA_DIR: server.dir, LOG_LEVEL: 'warn' };
  const { stdout } = await run('node', [MAIN, 'outbox', '--to', 'outboxed@example.com'], { env });
  const mails = JSON.parse(stdout) as Array<{ to: string; subject: string; text: string; from: string }>;
  t.is(mails.length, 1);
  t.like(mails[0], { to: 'outboxed@example.com', subject: 'King Hamlet invited you to join Zulip Dev' });
  t.regex(mails[0]!.text, /\/join\/[a-z2-7]{24}\//);
  t.regex(mails[0]!.from, /^noreply@/);
  const all = JSON.parse((await run('node', [MAIN, 'outbox'], { env })).stdout) as unknown[];
  t.true(all.length >= 1);
});
