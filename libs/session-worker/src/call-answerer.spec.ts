import type { CallReceivedEventV1, SessionCommand } from '@jumbe/contracts';
import type { IncomingCall } from '@jumbe/network';
import pino from 'pino';
import { CallAnswerer } from './call-answerer';
import type { CallSettingsStore, StoredCallSettings } from './ports/call-settings-store';
import { StatusRelay } from './status-relay';
import type { EventTypeFilter } from './subscription-filter';
import { RecordingPublisher } from './test-support/recording-publisher';

const REF = { accountId: 'acct-1', sessionId: 'main' };
const CALL: IncomingCall = {
  id: 'CALL1',
  from: '100000000000001@lid',
  callerPhone: '254711000001',
  video: true,
  group: false,
  groupJid: null,
  offeredAt: new Date('2026-01-02T03:04:05Z'),
};

/** Settings kept in memory, as the PostgreSQL repository keeps them per account and session. */
class MemoryCallSettings implements CallSettingsStore {
  readonly stored = new Map<string, StoredCallSettings>();
  unreadable = false;

  async find(ref: typeof REF) {
    if (this.unreadable) throw new Error('PostgreSQL is down');
    return this.stored.get(`${ref.accountId}/${ref.sessionId}`) ?? null;
  }

  async save(ref: typeof REF, settings: StoredCallSettings) {
    this.stored.set(`${ref.accountId}/${ref.sessionId}`, settings);
  }
}

/**
 * What a session does with a ringing call: the setting decides whether it is declined and the
 * reply sent (through the same command a send is), and `call.received` says what happened.
 */
describe('CallAnswerer', () => {
  let settings: MemoryCallSettings;
  let publisher: RecordingPublisher;
  let steps: string[];
  let commands: SessionCommand[];
  let rejectFails: boolean;
  let wanted: string[];

  const answerer = () => {
    const filter: EventTypeFilter = { wants: async (_account, event) => wanted.includes(event) };
    return new CallAnswerer({
      settings,
      statuses: new StatusRelay(publisher, filter),
      logger: pino({ level: 'silent' }),
      reject: async (_ref, call) => {
        if (rejectFails) throw new Error('the connection dropped');
        steps.push(`reject ${call.id}`);
      },
      execute: async (command) => {
        steps.push('send');
        commands.push(command);
      },
    });
  };
  const events = () => publisher.events.map((event) => event.payload as CallReceivedEventV1);

  beforeEach(() => {
    settings = new MemoryCallSettings();
    publisher = new RecordingPublisher();
    steps = [];
    commands = [];
    rejectFails = false;
    wanted = ['call.received'];
  });

  it('leaves the call ringing when the session never set it, and reports it not rejected', async () => {
    await answerer().answer(REF, CALL);
    expect(steps).toEqual([]);
    expect(events()).toEqual([
      {
        event: 'call.received',
        timestamp: expect.any(String),
        customerId: 'acct-1',
        sessionId: 'main',
        call: {
          id: 'CALL1',
          from: '254711000001',
          replyTo: '254711000001',
          video: true,
          group: false,
          groupId: null,
          offeredAt: '2026-01-02T03:04:05.000Z',
          rejected: false,
        },
      },
    ]);
  });

  it('rejects, then sends the reply as a text send to the caller, and reports it rejected', async () => {
    await settings.save(REF, { rejectCalls: true, reply: 'Text us please' });
    await answerer().answer(REF, CALL);
    expect(steps).toEqual(['reject CALL1', 'send']);
    expect(commands).toEqual([
      {
        v: 2,
        type: 'message.send',
        ...REF,
        message: expect.objectContaining({ kind: 'text', to: '254711000001', text: 'Text us please' }),
      },
    ]);
    expect(events().map((event) => event.call.rejected)).toEqual([true]);
  });

  it('rejects without a reply when the setting has none', async () => {
    await settings.save(REF, { rejectCalls: true, reply: null });
    await answerer().answer(REF, CALL);
    expect(steps).toEqual(['reject CALL1']);
  });

  it('sends no reply to a call it could not reject, and says so', async () => {
    await settings.save(REF, { rejectCalls: true, reply: 'Text us please' });
    rejectFails = true;
    await answerer().answer(REF, CALL);
    expect(commands).toEqual([]);
    expect(events().map((event) => event.call.rejected)).toEqual([false]);
  });

  it('leaves the call ringing when the setting cannot be read, and still reports it', async () => {
    await settings.save(REF, { rejectCalls: true, reply: 'Text us please' });
    settings.unreadable = true;
    await answerer().answer(REF, CALL);
    expect(steps).toEqual([]);
    expect(events().map((event) => event.call.rejected)).toEqual([false]);
  });

  it('publishes nothing to an account that did not subscribe, and still rejects', async () => {
    wanted = [];
    await settings.save(REF, { rejectCalls: true, reply: null });
    await answerer().answer(REF, CALL);
    expect(steps).toEqual(['reject CALL1']);
    expect(publisher.events).toEqual([]);
  });

  it("keeps each account's setting its own", async () => {
    await settings.save({ accountId: 'acct-2', sessionId: 'main' }, { rejectCalls: true, reply: null });
    await answerer().answer(REF, CALL);
    expect(steps).toEqual([]);
  });
});
