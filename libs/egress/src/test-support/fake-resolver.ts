import type { HostResolver } from '../host-resolver';

/**
 * A resolver that answers from a script instead of DNS: each call takes the next answer (the last
 * one repeats), which is how a rebinding name behaves. Records the hosts it was asked about.
 */
export function fakeResolver(...answers: (string[] | Error)[]): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string): Promise<string[]> => {
    const answer = answers[Math.min(calls.length, answers.length - 1)];
    calls.push(host);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(resolver, { calls });
}

/** The error dns.lookup gives for a name that does not exist. */
export function dnsNotFound(host: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
}
