import { KEY_SCOPES } from '@jumbe/domain';
import { z } from 'zod';

/** Control characters (NUL included) and unpaired UTF-16 surrogates: nothing a name needs, and PostgreSQL refuses NUL. */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const name = (label: string) =>
  z
    .string()
    .trim()
    .min(1, `${label} must not be empty`)
    .max(200, `${label} must be at most 200 characters`)
    .refine(
      (value) => !UNPRINTABLE.test(value),
      `${label} must not contain control characters or unpaired surrogates`,
    );

export const createPlanSchema = z.strictObject({
  name: name('name').describe('Unique plan name, e.g. `starter`.'),
  monthlyApiHits: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .describe('API hits allowed per calendar month.'),
  maxSessions: z.number().int().min(0).max(100_000).describe('Active sessions allowed at once.'),
});

/** The plan's limits to change; omitted fields keep their value. The name is fixed. */
export const updatePlanSchema = z.strictObject({
  monthlyApiHits: createPlanSchema.shape.monthlyApiHits.optional(),
  maxSessions: createPlanSchema.shape.maxSessions.optional(),
});

export const createAccountSchema = z.strictObject({
  name: name('name'),
  plan: name('plan').describe('Plan name.'),
});

export const updateAccountSchema = z.strictObject({
  plan: name('plan').optional(),
  suspended: z.boolean().optional(),
});

export const createKeySchema = z.strictObject({
  name: name('name').optional(),
  scope: z.enum(KEY_SCOPES).default('full').describe('`full` (every route) or `read` (GET routes only).'),
});

export type CreatePlanInput = z.output<typeof createPlanSchema>;
export type UpdatePlanInput = z.output<typeof updatePlanSchema>;
export type CreateAccountInput = z.output<typeof createAccountSchema>;
export type UpdateAccountInput = z.output<typeof updateAccountSchema>;
export type CreateKeyInput = z.output<typeof createKeySchema>;
