import { ApiError } from './api-error';
import { ERROR_STATUS, ERRORS, type ErrorCode } from './error-codes';

describe('ApiError', () => {
  it.each([
    ['validation_error', 400],
    ['invalid_phone', 400],
    ['unauthorized', 401],
    ['monthly_limit_reached', 402],
    ['account_suspended', 403],
    ['not_found', 404],
    ['webhook_not_enabled', 409],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['rate_limited', 429],
    ['internal_error', 500],
    ['media_fetch_failed', 502],
    ['unavailable', 503],
    ['timeout', 504],
  ] as [ErrorCode, number][])('%s travels with status %d', (code, status) => {
    expect(new ApiError(code, 'x').status).toBe(status);
  });

  it.each(Object.keys(ERROR_STATUS) as ErrorCode[])('%s takes its status from the code table', (code) => {
    expect(new ApiError(code, 'x').status).toBe(ERROR_STATUS[code]);
  });

  it('is an Error with the message, the name ApiError and a stack', () => {
    const error = new ApiError('not_found', 'No session main.');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error.message).toBe('No session main.');
    expect(error.stack).toContain('ApiError');
  });

  it('has no details and no extra headers unless given', () => {
    const error = new ApiError('conflict', 'Busy.');
    expect(error.details).toBeUndefined();
    expect(error.headers).toEqual({});
    expect(new ApiError('rate_limited', 'Slow down.', undefined, { 'Retry-After': '3' }).headers).toEqual({
      'Retry-After': '3',
    });
  });

  it('toBody without details has no details key at all', () => {
    const body = new ApiError('unauthorized', 'Missing API key.').toBody();
    expect(body).toEqual({ message: 'Missing API key.', error: { code: 'unauthorized' } });
    expect(Object.keys(body.error)).toEqual(['code']);
    expect(JSON.stringify(body)).toBe('{"message":"Missing API key.","error":{"code":"unauthorized"}}');
  });

  it('toBody with details carries them as given', () => {
    const details = [{ path: '/to', problem: 'bad number' }];
    expect(new ApiError('invalid_phone', 'Invalid request body.', details).toBody()).toEqual({
      message: 'Invalid request body.',
      error: { code: 'invalid_phone', details },
    });
  });

  it('toBody keeps falsy details other than undefined (null, empty list)', () => {
    expect(new ApiError('conflict', 'x', null).toBody().error).toEqual({ code: 'conflict', details: null });
    expect(new ApiError('conflict', 'x', []).toBody().error).toEqual({ code: 'conflict', details: [] });
  });

  it('never puts the extra headers into the body', () => {
    const body = new ApiError('unavailable', 'Try later.', undefined, { 'Retry-After': '5' }).toBody();
    expect(JSON.stringify(body)).not.toContain('Retry-After');
  });

  it('without a message carries the message its code has in the one table', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const error = new ApiError(code);
      expect(error.message).toBe(ERRORS[code].message);
      expect(error.message.length).toBeGreaterThan(5);
      expect(error.status).toBe(ERRORS[code].status);
      expect(ERROR_STATUS[code]).toBe(ERRORS[code].status);
    }
  });
});
