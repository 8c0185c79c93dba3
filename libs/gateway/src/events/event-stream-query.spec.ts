import { ApiError } from '@jumbe/contracts';
import { lastSeenEventId, STREAMABLE_EVENTS, streamEventTypes } from './event-stream-query';

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('streamEventTypes', () => {
  it('takes the types asked for, each once', () => {
    expect(streamEventTypes('message.received, message.status,message.received', null)).toEqual([
      'message.received',
      'message.status',
    ]);
  });

  it("defaults to the account's webhook's types, else message.received", () => {
    expect(streamEventTypes(undefined, ['message.received', 'session.status'])).toEqual([
      'message.received',
      'session.status',
    ]);
    expect(streamEventTypes(undefined, null)).toEqual(['message.received']);
  });

  it('never streams webhook.test, which only the webhook receives', () => {
    expect(STREAMABLE_EVENTS).not.toContain('webhook.test');
    expect(refusal(() => streamEventTypes('webhook.test', null)).code).toBe('validation_error');
  });

  it('refuses an unknown or empty list with a 400 naming the known types', () => {
    const unknown = refusal(() => streamEventTypes('message.received,message.deleted', null));
    expect(unknown.status).toBe(400);
    expect(unknown.details).toEqual([
      { path: '/types', problem: expect.stringContaining('"message.deleted"') },
    ]);
    expect(refusal(() => streamEventTypes(' , ', null)).details).toEqual([
      { path: '/types', problem: expect.stringContaining('message.status') },
    ]);
  });
});

describe('lastSeenEventId', () => {
  it('is null without Last-Event-ID or since: the stream starts with the next event', () => {
    expect(lastSeenEventId(undefined, undefined)).toBeNull();
  });

  it("prefers Last-Event-ID (an EventSource reconnecting) over the URL's since", () => {
    expect(lastSeenEventId('42', '7')).toBe(42);
    expect(lastSeenEventId(undefined, '7')).toBe(7);
    expect(lastSeenEventId(' ', '7')).toBe(7);
  });

  it('refuses an id that is not a sequence number', () => {
    expect(refusal(() => lastSeenEventId('abc', undefined)).details).toEqual([
      { path: '/Last-Event-ID', problem: expect.any(String) },
    ]);
    expect(refusal(() => lastSeenEventId(undefined, '-1')).details).toEqual([
      { path: '/since', problem: expect.any(String) },
    ]);
  });
});
