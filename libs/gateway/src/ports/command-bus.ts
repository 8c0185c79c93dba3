/**
 * The request/reply bus to workers and dispatchers, as the gateway uses it: one request, one
 * reply (MessageBus of @jumbe/messaging satisfies it). A request nobody answers rejects with the
 * bus's BusNoResponderError, one answered too late with its BusTimeoutError.
 */
export interface CommandBus {
  request(
    subject: string,
    payload: unknown,
    options: { timeoutMs: number; headers?: Readonly<Record<string, string>> },
  ): Promise<unknown>;
}
