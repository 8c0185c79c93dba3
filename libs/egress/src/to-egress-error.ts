import { EgressConnectionError } from './egress-connection-error';
import { EgressError } from './egress-error';

/**
 * Turns whatever Node's sockets or undici raised into a typed EgressError with a short message naming the
 * host (and port), never the full URL: a webhook URL may carry a token in its path or query.
 */
export function toEgressError(error: unknown, hostLabel: string, answered: boolean): EgressError {
  if (error instanceof EgressError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = (() => {
    switch (code) {
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_NONAME':
      case 'EAI_NODATA':
      case 'EAI_FAIL':
        return `could not resolve ${hostLabel.replace(/:\d+$/, '')}`;
      case 'ECONNREFUSED':
        return `connection refused by ${hostLabel}`;
      // The last: undici's name for a connection that ended before the body's announced length.
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
        return answered
          ? `connection to ${hostLabel} closed mid-response`
          : `connection to ${hostLabel} closed before a response`;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${hostLabel} is unreachable`;
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return `connecting to ${hostLabel} timed out`;
    }
    const parserFailed = (error as Error | undefined)?.name === 'HTTPParserError';
    if (code.startsWith('HPE_') || parserFailed) return `invalid HTTP response from ${hostLabel}`;
    if (/CERT|TLS|SSL/.test(code)) return `TLS with ${hostLabel} failed (${code})`;
    return `request to ${hostLabel} failed${code ? ` (${code})` : ''}`;
  })();
  return new EgressConnectionError(message, { cause: error });
}
