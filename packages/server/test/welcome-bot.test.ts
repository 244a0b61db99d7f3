import { IDS, withServer } from './context.js';
import { bodyOf, ok, refusal } from './replies.js';

/**
 * POST /realm/test_welcome_bot_custom_message: an administrator gets the
 * custom welcome text as a direct message from the bot that welcomes new
 * users; members may not, and the text may not be empty.
 */
const test = withServer(['iago', 'hamlet']);

type Message = { id: number; content: string; sender_email: string; display_recipient: { id: number }[] };

test('an administrator gets the custom text from the welcome bot; the answer names the message', async (t) => {
  const { iago } = t.context;
  const text = 'Welcome Bot custom message for **testing**';
  const { message_id } = (await ok(iago, 'POST', '/realm/test_welcome_bot_custom_message', {
    welcome_message_custom_text: text,
  })) as { message_id: number };
  const { message } = await bodyOf<{ message: Message }>(
    iago.get(`/messages/${message_id}`, { apply_markdown: false }),
  );
  t.is(message.content, text);
  t.not(message.sender_email, 'iago@zulip.com');
  t.true(message.display_recipient.some((r) => r.id === IDS.iago));
});

test('members may not; an empty text is refused', async (t) => {
  const { iago, hamlet } = t.context;
  const path = '/realm/test_welcome_bot_custom_message';
  t.deepEqual(await refusal(hamlet.post(path, { welcome_message_custom_text: 'hi' })), {
    status: 400,
    result: 'error',
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  t.deepEqual(await refusal(iago.post(path, { welcome_message_custom_text: '' })), {
    status: 400,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: 'Message must not be empty',
  });
  t.is((await iago.post(path, { welcome_message_custom_text: 'x'.repeat(8001) })).status, 400);
});
