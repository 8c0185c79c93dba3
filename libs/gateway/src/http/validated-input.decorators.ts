import { parseInput } from '@jumbe/contracts';
import { Body, type PipeTransform, Query } from '@nestjs/common';
import type { z } from 'zod';

/**
 * Validates a request part against a contract schema (400 listing every problem). The schema is
 * readable so a test can hold each route's OpenAPI description to what the route validates with.
 */
export class ContractValidationPipe implements PipeTransform {
  constructor(
    readonly schema: z.ZodType,
    private readonly what: string,
  ) {}

  transform(value: unknown): unknown {
    // An empty body is validated as {} so all-optional bodies (e.g. /session/start) accept it.
    return parseInput(this.schema, value ?? {}, this.what);
  }
}

/** The request body, validated against a contract schema. */
export const ValidBody = (schema: z.ZodType) => Body(new ContractValidationPipe(schema, 'request body'));

/** The query string, validated against a contract schema. */
export const ValidQuery = (schema: z.ZodType) => Query(new ContractValidationPipe(schema, 'query'));
