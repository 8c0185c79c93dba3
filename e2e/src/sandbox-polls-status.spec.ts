import type { ApiClient, RecordingReceiver } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { useSandboxTopology } from './support/sandbox-fixture';
import { eventually, linkSession, randomPhone } from './support/sandbox-helpers';
import { startAllInOne, startDistributed } from './support/topology';

/** Two accounts, both sessions linked: what each case works with. */
interface Accounts {
  api: ApiClient;
  owner: string;
  other: string;
}

interface OutboxEntry {
  id: string;
  to: string;
  type: string;
  content: Record<string, unknown>;
}

/**
 * Issue 30 items 3 and 7 through the all-in-one on the sandbox: a poll sent, a contact's vote as
 * the opt-in `message.poll_vote`, and a status posted to the contacts listed; each account sees
 * only its own polls.
 */
describe('sandbox: polls and status', () => {
  const sandbox = useSandboxTopology(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));

  it('sends a poll, and a contact’s vote arrives as message.poll_vote with the options chosen', async () =>
    pollsAndVotes(await freshAccounts(sandbox.gateway(), sandbox.adminToken()), sandbox.receiver()));

  it('posts a status to the contacts listed: recorded to status@broadcast; bad bodies 400', async () =>
    postsStatus(await freshAccounts(sandbox.gateway(), sandbox.adminToken()), sandbox.receiver()));
});

/**
 * The same user-level cases on the distributed topology (gateway, one session worker, one webhook
 * dispatcher over NATS/Redis/PostgreSQL): the poll is kept where the worker finds it when the vote
 * arrives, and the vote's event is delivered by the dispatcher.
 */
describe('distributed sandbox: polls and status', () => {
  const sandbox = useSandboxTopology(() =>
    startDistributed(1, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 1, { dispatchers: 1 }),
  );
  let accounts: Promise<Accounts> | undefined;
  // Both cases work with the same two accounts: made once, by the first case that needs them.
  const shared = () => (accounts ??= freshAccounts(sandbox.gateway(), sandbox.adminToken()));

  it('sends a poll, and a contact’s vote arrives as message.poll_vote with the options chosen', async () =>
    pollsAndVotes(await shared(), sandbox.receiver()));

  it('posts a status to the contacts listed: recorded to status@broadcast; bad bodies 400', async () =>
    postsStatus(await shared(), sandbox.receiver()));
});

/** Two new accounts, each with its session linked. */
async function freshAccounts(api: ApiClient, adminToken: string): Promise<Accounts> {
  const owner = await createAccount(api, adminToken);
  const other = await createAccount(api, adminToken);
  await linkSession(api, owner.key);
  await linkSession(api, other.key);
  return { api, owner: owner.key, other: other.key };
}

async function pollsAndVotes({ api, owner, other }: Accounts, receiver: RecordingReceiver): Promise<void> {
  const hooked = await api.patch('/api/v1/webhook', {
    key: owner,
    body: { url: `${receiver.url}/votes`, events: ['message.poll_vote'] },
  });
  expect(hooked.status).toBe(200);
  const contact = randomPhone();

  const tooFew = await api.post('/api/v1/messages/poll', {
    key: owner,
    body: { to: contact, question: 'Lunch?', options: ['Ugali'] },
  });
  expect(tooFew.status).toBe(400);
  expect(tooFew.body.error.code).toBe('validation_error');
  const repeated = await api.post('/api/v1/messages/poll', {
    key: owner,
    body: { to: contact, question: 'Lunch?', options: ['Ugali', 'Ugali'] },
  });
  expect(repeated.status).toBe(400);

  const sent = await api.post('/api/v1/messages/poll', {
    key: owner,
    body: { to: contact, question: 'Lunch?', options: ['Ugali', 'Pilau', 'Chapati'] },
  });
  expect(sent.status).toBe(200);
  const pollId: string = sent.body.data.key.id;
  const outbox = await api.get('/api/v1/sandbox/outbox?limit=5', { key: owner });
  expect(outbox.body.data.find((entry: OutboxEntry) => entry.id === pollId)).toMatchObject({
    to: `${contact}@s.whatsapp.net`,
    type: 'poll',
    content: { question: 'Lunch?', options: ['Ugali', 'Pilau', 'Chapati'] },
  });

  const vote = (options: string[], key = owner, from = contact) =>
    api.post('/api/v1/sandbox/inbound', { key, body: { from, pollVote: { pollId, options } } });
  const voted = await vote(['Pilau']);
  expect(voted.status).toBe(200);
  const [event] = await receiver.waitFor('/votes', 1);
  expect(event?.json).toMatchObject({
    event: 'message.poll_vote',
    sessionId: 'default',
    vote: {
      id: voted.body.data.id,
      pollId,
      chat: `${contact}@s.whatsapp.net`,
      from: contact,
      replyTo: contact,
      selectedOptions: ['Pilau'],
    },
  });

  // Single choice, the poll's options only, the contact it went to only.
  expect((await vote(['Pilau', 'Ugali'])).status).toBe(400);
  expect((await vote(['Biryani'])).status).toBe(400);
  expect((await vote(['Ugali'], owner, randomPhone())).status).toBe(404);
  // Another account cannot vote on (or learn of) this account's poll.
  const foreign = await vote(['Ugali'], other);
  expect(foreign.status).toBe(404);
  expect(foreign.body.error.code).toBe('message_not_found');

  const changed = await vote([]);
  expect(changed.status).toBe(200);
  const events = await receiver.waitFor('/votes', 2);
  expect(events[1]?.json.vote).toMatchObject({ id: changed.body.data.id, selectedOptions: [] });
}

async function postsStatus({ api, owner: key }: Accounts, receiver: RecordingReceiver): Promise<void> {
  const contacts = [randomPhone(), randomPhone()];

  const posted = await api.post('/api/v1/messages/status', {
    key,
    body: { text: 'Open till 8 today', backgroundColor: '#1E90FF', contacts },
  });
  expect(posted.status).toBe(200);
  expect(posted.body.data.key.remoteJid).toBe('status@broadcast');
  const outbox = await eventually(
    () => api.get('/api/v1/sandbox/outbox?limit=5', { key }),
    (response) => response.body.data.some((entry: OutboxEntry) => entry.type === 'status'),
  );
  expect(outbox.body.data.find((entry: OutboxEntry) => entry.type === 'status')).toMatchObject({
    id: posted.body.data.key.id,
    to: 'status@broadcast',
    content: { type: 'text', text: 'Open till 8 today', backgroundColor: '#1E90FF', contacts },
  });

  const image = await api.post('/api/v1/messages/status', {
    key,
    body: { type: 'image', url: `${receiver.url}/offer.jpg`, caption: 'New stock', contacts },
  });
  expect(image.status).toBe(200);

  const noContacts = await api.post('/api/v1/messages/status', { key, body: { text: 'Hi' } });
  expect(noContacts.status).toBe(400);
  expect(noContacts.body.error.details).toEqual([expect.objectContaining({ path: '/contacts' })]);
  const imageWithoutUrl = await api.post('/api/v1/messages/status', {
    key,
    body: { type: 'image', contacts },
  });
  expect(imageWithoutUrl.status).toBe(400);
  const notHttp = await api.post('/api/v1/messages/status', {
    key,
    body: { type: 'video', url: 'ftp://cdn.example.test/clip.mp4', contacts },
  });
  expect(notHttp.status).toBe(400);
  expect(notHttp.body.error.code).toBe('invalid_media_url');
}
