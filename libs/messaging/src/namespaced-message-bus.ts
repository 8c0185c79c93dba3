import type {
  BusHandler,
  BusRequestOptions,
  BusServeOptions,
  BusSubscription,
  MessageBus,
} from './message-bus';

/**
 * Puts every subject under a deployment's namespace (`<namespace>.<subject>`), so deployments that
 * share one NATS server never answer each other's requests.
 */
export class NamespacedMessageBus implements MessageBus {
  constructor(
    private readonly inner: MessageBus,
    private readonly namespace: string,
  ) {}

  request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown> {
    return this.inner.request(`${this.namespace}.${subject}`, payload, options);
  }

  serve(subject: string, handler: BusHandler, options?: BusServeOptions): Promise<BusSubscription> {
    return this.inner.serve(`${this.namespace}.${subject}`, handler, options);
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
