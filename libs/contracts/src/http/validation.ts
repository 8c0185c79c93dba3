import type { z } from 'zod';
import { ApiError } from './api-error';
import type { ErrorCode, ValidationProblem } from './error-codes';

/**
 * Schemas tag value-form problems (a phone number of the wrong shape, a private URL…) with a
 * specific error code through `params.code`; anything else is a plain `validation_error`.
 */
export interface IssueParams {
  code?: ErrorCode;
}

/** Validates `input` against `schema`; on failure throws a 400 whose details list every problem. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'request body',
): z.output<S> {
  // reportInput lets a wrong-typed value be told apart from a missing one.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw validationFailure(result.error.issues, what);
}

export function validationFailure(issues: readonly z.core.$ZodIssue[], what: string): ApiError {
  const problems = issues.flatMap(toProblems);
  const codes = new Set(issues.map(specificCode));
  // A single specific code wins only when every problem is of that kind; mixed problems
  // (a missing field and a bad number) are a generic validation error listing both.
  const [only] = codes;
  const code: ErrorCode = codes.size === 1 && only !== undefined ? only : 'validation_error';
  const summary = problems.map((problem) => `${problem.path || '/'}: ${problem.problem}`).join('; ');
  return new ApiError(code, `Invalid ${what}: ${summary}`, problems);
}

function specificCode(issue: z.core.$ZodIssue): ErrorCode | undefined {
  return issue.code === 'custom' ? (issue.params as IssueParams | undefined)?.code : undefined;
}

function toProblems(issue: z.core.$ZodIssue): ValidationProblem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: pointer([...issue.path, key]),
      problem: 'unknown field; remove it (check the spelling against the API reference)',
    }));
  }
  return [{ path: pointer(issue.path), problem: describe(issue) }];
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    return issue.input === undefined ? `required ${issue.expected} is missing` : `expected ${issue.expected}`;
  }
  return issue.message;
}

/** RFC 6901 JSON pointer of a path. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
