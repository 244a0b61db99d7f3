import { withServer } from './context.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';
import { ok } from './replies.js';

/**
 * Code playgrounds: administrators add and remove them, every user hears
 * the whole list (`realm_playgrounds`), and the register lists them.
 */
const test = withServer(['iago', 'hamlet']);

const refusal = async (reply: Promise<{ status: number; body: Body }>) => {
  const { status, body } = await reply;
  return { status, code: body.code, msg: body.msg };
};
const badRequest = (msg: string) => ({ status: 400, code: 'BAD_REQUEST', msg });
const python = {
  name: 'Python playground',
  pygments_language: 'Python',
  url_template: 'https://python.example/?code={code}',
};

test.serial('administrators add and remove playgrounds; everyone hears the list', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['realm_playgrounds'] });
  const { id } = (await ok(iago, 'POST', '/realm/playgrounds', python)) as { id: number };
  const listed = (e: Event) =>
    e.type === 'realm_playgrounds' && (e.realm_playgrounds as Body[]).some((p) => p.id === id);
  t.deepEqual((await next(queue, listed)).realm_playgrounds, [{ id, ...python }]);
  t.deepEqual((await snapshotOf(hamlet, { fetch_event_types: ['realm_playgrounds'] })).realm_playgrounds, [
    { id, ...python },
  ]);
  t.deepEqual(
    await refusal(iago.post('/realm/playgrounds', python)),
    badRequest('Realm playground with this Realm, Pygments language and Name already exists.'),
  );

  await ok(iago, 'DELETE', `/realm/playgrounds/${id}`);
  await next(queue, (e) => e.type === 'realm_playgrounds' && (e.realm_playgrounds as Body[]).length === 0);
  t.deepEqual((await snapshotOf(hamlet, { fetch_event_types: ['realm_playgrounds'] })).realm_playgrounds, []);
  t.deepEqual(await refusal(iago.delete(`/realm/playgrounds/${id}`)), badRequest('Invalid playground'));
});

test.serial('members may not; languages and templates are checked', async (t) => {
  const { iago, hamlet } = t.context;
  t.deepEqual(await refusal(hamlet.post('/realm/playgrounds', python)), {
    status: 400,
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  const withValues = (values: Body) => iago.post('/realm/playgrounds', { ...python, ...values });
  t.deepEqual(
    await refusal(withValues({ pygments_language: 'py<thon>' })),
    badRequest('Invalid characters in pygments language'),
  );
  t.deepEqual(
    await refusal(withValues({ url_template: 'https://x.example/{code' })),
    badRequest('Invalid URL template.'),
  );
  t.deepEqual(
    await refusal(withValues({ url_template: 'https://x.example/{lang}/{code}' })),
    badRequest("'code' should be the only variable present in the URL template"),
  );
});
