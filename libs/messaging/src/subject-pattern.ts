/**
 * NATS subject matching, for the in-process bus to route exactly as NATS does: tokens are
 * dot-separated, `*` matches one token and `>` (last) matches one or more.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  // Most served subjects are literal (one per shard): compare them without tokenising.
  if (!pattern.includes('*') && !pattern.includes('>')) return pattern === subject;
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (let i = 0; i < patternTokens.length; i++) {
    const token = patternTokens[i];
    if (token === '>') return subjectTokens.length > i;
    if (i >= subjectTokens.length) return false;
    if (token !== '*' && token !== subjectTokens[i]) return false;
  }
  return patternTokens.length === subjectTokens.length;
}

/** Subjects as NATS accepts them: non-empty tokens, no whitespace; wildcards only where allowed. */
export function assertValidSubject(subject: string, allowWildcards: boolean): void {
  const tokens = subject.split('.');
  const valid =
    subject.length > 0 &&
    !/\s/.test(subject) &&
    tokens.every((token, i) => {
      if (token === '') return false;
      if (token === '*' || token === '>') return allowWildcards && (token === '*' || i === tokens.length - 1);
      return !token.includes('*') && !token.includes('>');
    });
  if (!valid) throw new TypeError(`invalid subject: '${subject}'`);
}
