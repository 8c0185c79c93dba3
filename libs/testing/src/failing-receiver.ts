import type { ReceiverBehaviour } from './recording-receiver';

/**
 * A receiver that answers `status` to its first `failures` requests and 200 to the rest: the
 * receiver an account's retries are for (down for a moment, then back).
 */
export function failsThenSucceeds(failures: number, status = 503): ReceiverBehaviour {
  let answered = 0;
  return (_request, response) => {
    answered += 1;
    response.statusCode = answered <= failures ? status : 200;
    response.end(answered <= failures ? 'down for a moment' : 'ok');
  };
}
