import { ApiError, replyError, replyMoving, replyOk } from '@jumbe/contracts';
import { InProcessMessageBus } from '@jumbe/messaging';
import { requestCommand, type Responder } from './command-requester';

const SUBJECT = 'jumbe.shard.7';
const WORKER: Responder = { name: 'The worker', absence: 'starting', handOverWaitMs: 2_000 };
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('requestCommand while a shard changes hands', () => {
  let bus: InProcessMessageBus;
  beforeEach(() => {
    bus = new InProcessMessageBus();
  });
  afterEach(() => bus.close());

  it('waits for a new owner to appear instead of answering 503', async () => {
    const answered = requestCommand(bus, SUBJECT, { n: 1 }, 5_000, WORKER);
    await delay(300); // Nobody serves the subject yet: the old owner died, the new one is joining.
    await bus.serve(SUBJECT, async () => replyOk({ sent: true }));
    await expect(answered).resolves.toEqual({ sent: true });
  });

  it('sends again when the owner says the session is moving, and never runs a command twice', async () => {
    let runs = 0;
    let moving = true;
    await bus.serve(SUBJECT, async () => {
      if (moving) return replyMoving('The session is moving to another worker.');
      runs += 1;
      return replyOk({ sent: true });
    });
    const answered = requestCommand(bus, SUBJECT, { n: 1 }, 5_000, WORKER);
    await delay(200);
    moving = false;
    await expect(answered).resolves.toEqual({ sent: true });
    expect(runs).toBe(1);
  });

  it('answers 503 unavailable with Retry-After once the hand-over wait is over', async () => {
    const startedAt = Date.now();
    const answered = requestCommand(bus, SUBJECT, { n: 1 }, 5_000, { ...WORKER, handOverWaitMs: 300 });
    await expect(answered).rejects.toMatchObject({ code: 'unavailable', headers: { 'Retry-After': '2' } });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it('does not send again an error of the command itself, such as a plain unavailable', async () => {
    let runs = 0;
    await bus.serve(SUBJECT, async () => {
      runs += 1;
      return replyError('unavailable', 'The worker could not complete the command.');
    });
    await expect(requestCommand(bus, SUBJECT, { n: 1 }, 5_000, WORKER)).rejects.toBeInstanceOf(ApiError);
    expect(runs).toBe(1);
  });

  it('passes session_restoring on with Retry-After', async () => {
    await bus.serve(SUBJECT, async () => replyError('session_restoring', 'Still restoring.'));
    await expect(requestCommand(bus, SUBJECT, { n: 1 }, 5_000, WORKER)).rejects.toMatchObject({
      code: 'session_restoring',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  });
});
