import { RecordingReceiver } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { startAllInOne } from './support/topology';

type AllInOne = Awaited<ReturnType<typeof startAllInOne>>;

/**
 * Issue 31: `POST /chats/presence` produced a `message.status` `server_ack` webhook for an id no
 * call had returned. Read receipts and presence send no message (CONTRACT §11), so a receiver
 * subscribed to `message.status` hears only of the messages its sends returned.
 */
describe('sandbox: read receipts and presence produce no message.status', () => {
  let running: AllInOne | undefined;
  let receiver: RecordingReceiver | undefined;

  afterAll(async () => {
    await receiver?.close();
    await running?.stop();
  });

  it('reports statuses of the sent message only', async () => {
    running = await startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' });
    receiver = await RecordingReceiver.start();
    const api = running.gateways[0];
    if (!api) throw new Error('the all-in-one has no gateway');
    const account = await createAccount(api, running.adminToken);
    const hooked = await api.patch('/api/v1/webhook', {
      key: account.key,
      body: { url: `${receiver.url}/statuses`, events: ['message.status'] },
    });
    expect(hooked.status).toBe(200);
    await linkSession(api, account.key);

    const chat = '254711111111';
    const actions = [
      await api.post('/api/v1/chats/presence', { key: account.key, body: { chat, state: 'typing' } }),
      await api.post('/api/v1/chats/read', { key: account.key, body: { chat, messageIds: ['IN1'] } }),
      await api.post('/api/v1/chats/presence', { key: account.key, body: { chat, state: 'paused' } }),
    ];
    expect(actions.map((response) => response.status)).toEqual([200, 200, 200]);
    const sent = await api.post('/api/v1/messages/text', {
      key: account.key,
      body: { to: chat, text: 'Habari' },
    });
    expect(sent.status).toBe(200);
    const { id } = sent.body.data.key;
    const delivered = await api.post('/api/v1/sandbox/status', {
      key: account.key,
      body: { messageId: id, status: 'delivered' },
    });
    expect(delivered.status).toBe(200);

    // The chat actions came first: had they produced statuses, they would be among these two.
    const statuses = await receiver.waitFor('/statuses', 2);
    expect(statuses.map((request) => [request.json.message.id, request.json.message.status])).toEqual([
      [id, 'server_ack'],
      [id, 'delivered'],
    ]);
    // Nor may the phone mark a chat action: it is no message the session sent.
    const [presence] = (
      await api.get('/api/v1/sandbox/outbox?limit=5', { key: account.key })
    ).body.data.filter((entry: { type: string }) => entry.type === 'presence');
    const marked = await api.post('/api/v1/sandbox/status', {
      key: account.key,
      body: { messageId: presence.id, status: 'read' },
    });
    expect(marked.status).toBe(404);
  });
});
