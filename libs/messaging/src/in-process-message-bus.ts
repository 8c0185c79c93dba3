import { BusHandlerError, BusNoResponderError, BusTimeoutError, BusUnavailableError } from './bus-errors';
import { errorMessageOf, fromJsonText, toJsonText } from './json-wire';
import type {
  BusHandler,
  BusHeaders,
  BusRequestOptions,
  BusServeOptions,
  BusSubscription,
  MessageBus,
} from './message-bus';
import { assertValidSubject, subjectMatches } from './subject-pattern';

type Outcome = { ok: true; body: string } | { ok: false; message: string };

/** One `serve` registration and the handler calls it has started. */
interface Server {
  pattern: string;
  queue: string | undefined;
  handler: BusHandler;
  inFlight: Set<Promise<Outcome>>;
}

/** The servers a subject reaches: plain ones all, queue groups one member each. */
interface Route {
  plain: Server[];
  groups: Map<string, Server[]>;
}

/** Subjects whose routes are kept at most (a bound, should callers make up subjects freely). */
const MAX_KEPT_ROUTES = 1_024;

/**
 * The all-in-one twin of NatsMessageBus: same routing (subject wildcards, queue groups, first
 * reply wins), same JSON copying, same errors, without a network. Handlers start on a later turn
 * of the event loop, as they would after a network hop, so a requester never runs inside its
 * handler's stack.
 */
export class InProcessMessageBus implements MessageBus {
  private servers: Server[] = [];
  private closed = false;
  /** Round-robin position per queue group: one member of the group takes each request. */
  private readonly nextInGroup = new Map<string, number>();
  /** Per requested subject, its servers (see routeOf); emptied whenever the servers change. */
  private readonly routes = new Map<string, Route>();

  async request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown> {
    const route = this.routeOf(subject);
    const body = toJsonText(payload);
    if (this.closed) throw new BusUnavailableError('message bus is closed');
    const targets = this.pick(route);
    if (targets.length === 0) throw new BusNoResponderError(subject);

    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new BusTimeoutError(subject, options.timeoutMs));
      }, options.timeoutMs);
      // Copied, as the network would: a handler never shares the caller's object.
      const headers = { ...options.headers };
      for (const server of targets) {
        void this.dispatch(server, body, headers).then((outcome) => {
          if (settled) return; // a later reply, or one after the timeout, is dropped as NATS does
          settled = true;
          clearTimeout(timer);
          if (outcome.ok) resolve(fromJsonText(outcome.body));
          else reject(new BusHandlerError(subject, outcome.message));
        });
      }
    });
  }

  async serve(subject: string, handler: BusHandler, options: BusServeOptions = {}): Promise<BusSubscription> {
    assertValidSubject(subject, true);
    if (this.closed) throw new BusUnavailableError('message bus is closed');
    const server: Server = { pattern: subject, queue: options.queue, handler, inFlight: new Set() };
    this.servers.push(server);
    this.routes.clear();
    let stopped: Promise<void> | undefined;
    return {
      unsubscribe: () => {
        stopped ??= this.stop(server);
        return stopped;
      },
    };
  }

  async check(): Promise<void> {
    if (this.closed) throw new BusUnavailableError('message bus is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.servers.map((server) => this.stop(server)));
  }

  /**
   * The servers of a subject, found once and kept until a server comes or goes (the shard
   * subjects are few and requested over and over; matching every served pattern on each
   * request was a measurable share of an all-in-one send). A subject is validated on a miss.
   */
  private routeOf(subject: string): Route {
    const known = this.routes.get(subject);
    if (known) return known;
    assertValidSubject(subject, false);
    const matching = this.servers.filter((server) => subjectMatches(server.pattern, subject));
    const route: Route = { plain: [], groups: new Map() };
    for (const server of matching) {
      if (server.queue === undefined) route.plain.push(server);
      else route.groups.set(server.queue, [...(route.groups.get(server.queue) ?? []), server]);
    }
    if (this.routes.size >= MAX_KEPT_ROUTES) this.routes.clear();
    this.routes.set(subject, route);
    return route;
  }

  /** Every plain server of the route, plus one member of each queue group. */
  private pick(route: Route): Server[] {
    if (route.groups.size === 0) return route.plain;
    const chosen = [...route.plain];
    for (const [queue, members] of route.groups) {
      const position = this.nextInGroup.get(queue) ?? 0;
      this.nextInGroup.set(queue, position + 1);
      chosen.push(members[position % members.length] as Server);
    }
    return chosen;
  }

  private dispatch(server: Server, body: string, headers: BusHeaders): Promise<Outcome> {
    const handling = (async (): Promise<Outcome> => {
      await new Promise((resolve) => setImmediate(resolve)); // the "network hop"
      try {
        const reply = await server.handler(fromJsonText(body), { headers: { ...headers } });
        return { ok: true, body: toJsonText(reply) };
      } catch (error) {
        return { ok: false, message: errorMessageOf(error) };
      }
    })();
    server.inFlight.add(handling);
    void handling.finally(() => server.inFlight.delete(handling));
    return handling;
  }

  private async stop(server: Server): Promise<void> {
    this.servers = this.servers.filter((candidate) => candidate !== server);
    this.routes.clear();
    await Promise.all([...server.inFlight]);
  }
}
