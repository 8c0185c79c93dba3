import { ApiError } from '@jumbe/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Where /metrics is served and with which credential (JUMBE_METRICS_PORT, JUMBE_METRICS_TOKEN). */
export interface MetricsAccessSettings {
  /** JUMBE_METRICS_PORT: /metrics is served there only; null serves it on the service's own port. */
  metricsPort: number | null;
  /** JUMBE_METRICS_TOKEN: required as `Authorization: Bearer <token>` wherever /metrics is served. */
  metricsToken: string | null;
}

/**
 * Who may read /metrics. On the service's own port (the public API's, JUMBE_PORT) only a caller
 * with the metrics token: with no JUMBE_METRICS_TOKEN it is not served there at all. On
 * JUMBE_METRICS_PORT, a port kept off the public network, anyone who reaches it, unless a token is
 * set, which is then required there too. The token is compared in constant time.
 */
export class MetricsAccess {
  private readonly expected: Buffer | null;

  constructor(private readonly settings: MetricsAccessSettings) {
    this.expected = settings.metricsToken === null ? null : digest(settings.metricsToken);
  }

  /** Why a request to /metrics on the service's own port is refused, or null when it may scrape. */
  refusalOnServicePort(authorization: string | undefined): ApiError | null {
    if (this.settings.metricsPort !== null) {
      return new ApiError('not_found', '/metrics is served on JUMBE_METRICS_PORT, not on this port.');
    }
    if (this.expected === null) {
      return new ApiError(
        'not_found',
        '/metrics is off on this port: set JUMBE_METRICS_TOKEN to scrape it here with ' +
          '"Authorization: Bearer <JUMBE_METRICS_TOKEN>", or JUMBE_METRICS_PORT to serve it on a port of its own.',
      );
    }
    return this.tokenRefusal(authorization);
  }

  /** Why a request to /metrics on JUMBE_METRICS_PORT is refused, or null when it may scrape. */
  refusalOnMetricsPort(authorization: string | undefined): ApiError | null {
    return this.expected === null ? null : this.tokenRefusal(authorization);
  }

  private tokenRefusal(authorization: string | undefined): ApiError | null {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    // Fixed-length digests keep the comparison constant-time whatever the length presented.
    if (
      presented !== undefined &&
      this.expected !== null &&
      timingSafeEqual(digest(presented), this.expected)
    ) {
      return null;
    }
    return new ApiError(
      'unauthorized',
      'Missing or invalid metrics token. Send "Authorization: Bearer <JUMBE_METRICS_TOKEN>".',
    );
  }
}
