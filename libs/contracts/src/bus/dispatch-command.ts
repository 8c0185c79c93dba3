import { z } from 'zod';

/**
 * Commands the gateway sends to any webhook dispatcher (a queue group): deliveries made on
 * request rather than from the event stream. Answered with the delivery record.
 */
export const DISPATCH_SUBJECT = 'jumbe.v1.dispatch';
export const DISPATCH_QUEUE = 'webhook-dispatchers';
export const DISPATCH_COMMAND_VERSION = 1;

export const dispatchCommandSchema = z.discriminatedUnion('type', [
  z.object({
    v: z.literal(DISPATCH_COMMAND_VERSION),
    type: z.literal('webhook.test'),
    accountId: z.string().min(1),
  }),
  z.object({
    v: z.literal(DISPATCH_COMMAND_VERSION),
    type: z.literal('webhook.redeliver'),
    accountId: z.string().min(1),
    deliveryId: z.string().min(1),
  }),
]);

export type DispatchCommand = z.output<typeof dispatchCommandSchema>;
