// How long sessions take to send again after their worker was replaced (takeover and sessions benches).
import { call } from './deployment.mjs';
import { pause } from './services.mjs';

/** Runs `work` over `items`, `parallel` at a time. */
export async function inParallel(items, parallel, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * Sends through every session (`parallel` at a time) until each has succeeded once; ms from
 * `since` to the last success and to the median one, and the answers counted on the way.
 */
export async function untilEverySessionSends(gateway, key, sessionIds, since, parallel) {
  const recoveredAfter = [];
  const answers = {};
  await inParallel(sessionIds, parallel, async (sessionId) => {
    for (;;) {
      const sent = await call(
        `${gateway}/api/v1/messages/text`,
        'POST',
        { sessionId, to: '254711111111', text: 'still here' },
        { 'x-api-key': key },
      );
      const answer = sent.status === 200 ? '200' : `${sent.status} ${sent.body?.error?.code}`;
      answers[answer] = (answers[answer] ?? 0) + 1;
      if (sent.status === 200) break;
      if (Date.now() - since > 300_000) throw new Error(`${sessionId} never sent again`);
      await pause(200);
    }
    recoveredAfter.push(Date.now() - since);
  });
  recoveredAfter.sort((a, b) => a - b);
  return {
    allMs: recoveredAfter.at(-1),
    p50Ms: recoveredAfter[Math.floor(recoveredAfter.length / 2)],
    answers,
  };
}
