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
    const error = this.toApiError(exception, request);
    if (
      error.status >= 500 &&
      error.code !== 'unavailable' &&
      error.code !== 'session_restoring' &&
      error.code !== 'timeout'
    ) {
      this.logger.error({ err: exception, method: request.method, url: request.url }, 'request failed');
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
    return new ApiError('internal_error', 'Internal error. It has been logged.');
  }
}
