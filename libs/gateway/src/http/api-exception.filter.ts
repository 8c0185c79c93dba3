import { ApiError, type ErrorCode } from '@jumbe/contracts';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** Statuses Nest or Fastify may raise on their own, mapped to contract codes. */
const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
  504: 'timeout',
};

/**
 * Every error, on every route, leaves as the contract's envelope (CONTRACT §1). Anything that is
 * not a known client-facing error is a bug: logged with its stack, answered 500 without details.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    if (isClientAbort(exception, request)) {
      // The client hung up mid-request: nobody is listening for an answer, and it is no fault of ours.
      this.logger.debug(
        { method: request.method, route: request.routeOptions.url },
        'client aborted request',
      );
      return;
    }
    const error = this.toApiError(exception, request);
    if (
      error.status >= 500 &&
      error.code !== 'unavailable' &&
      error.code !== 'session_restoring' &&
      error.code !== 'timeout'
    ) {
      // The route pattern, not the URL: a query string may carry what must not be logged.
      this.logger.error(
        { err: exception, method: request.method, route: request.routeOptions.url },
        'request failed',
      );
    }
    void reply.headers(error.headers).status(error.status).send(error.toBody());
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return new ApiError(
          'not_found',
          `No route ${request.method} ${request.url.split('?')[0]}. See /api/v1/openapi.json.`,
        );
      }
      const code = CODE_FOR_STATUS[status];
      if (code) return new ApiError(code, exception.message);
    }
    // Fastify's own errors (FST_ERR_CTP_*: bad Content-Length, body over the socket limit…).
    const status = fastifyClientStatus(exception);
    const code = status === undefined ? undefined : CODE_FOR_STATUS[status];
    if (code) return new ApiError(code, (exception as Error).message);
    if (status !== undefined) return new ApiError('validation_error', (exception as Error).message);
    return new ApiError('internal_error');
  }
}

/** The status a Fastify error carries, when it is a client error (4xx). */
function fastifyClientStatus(exception: unknown): number | undefined {
  if (!(exception instanceof Error)) return undefined;
  const status = (exception as Error & { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function isClientAbort(exception: unknown, request: FastifyRequest): boolean {
  const code = (exception as { code?: unknown } | null)?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    // Not `request.raw.destroyed`: a fully read request is destroyed too (autoDestroy).
    request.raw.socket?.destroyed === true
  );
}
