// `npm run chaos -- --seed N --minutes M [--sessions K]`: the fault schedule of issue 28. The
// distributed topology (gateway, two session workers on real Baileys, webhook dispatcher; their
// PostgreSQL, NATS and Redis each behind a TCP proxy) against the WhatsApp emulator; emulated
// contacts write to K linked sessions while the customer sends through the HTTP API; faults drawn
// from the seed (schedule.mjs) are injected one after another; then it heals, waits and checks,
// and prints one JSON line. Exit 0 only when every invariant held.
//   --seed N          the schedule's seed (default: drawn, and printed)
//   --minutes M       how long traffic runs and faults are drawn for (default 2)
//   --sessions K      linked sessions (default 2)
//   --kinds a,b       only these fault kinds (schedule.mjs FAULT_KINDS)
//   --no-faults       traffic only (checks the tool itself)
//   --print-schedule  print the schedule and exit
//   --reconnect-within S  seconds after the last fault's heal every session must be connected by (60)
//   --ci              the short form `npm test` runs: seed 14, 3 minutes, 2 sessions (CI_RUNS)
// Logs of every process: /tmp/jumbe-chaos/<run>/ (CHAOS_DIR). Not part of `npm test`.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect, parseArgs } from 'node:util';
import { createAccount, createDeployment, createKey, ok } from '../support/deployment.mjs';
import { killAll, pause, root } from '../support/services.mjs';
import { runFault } from './faults.mjs';
import { drawer, drawSchedule, FAULT_KINDS, seededRandom } from './schedule.mjs';
import { snapshotBuild, startStack, until } from './stack.mjs';
import { startContactTraffic, startCustomerTraffic } from './traffic.mjs';
import { customerSettled, customerVerdict, inboundVerdict } from './verdict.mjs';
import { startWebhookRecorder } from './webhook-recorder.mjs';

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string' },
    minutes: { type: 'string', default: '2' },
    sessions: { type: 'string', default: '2' },
    kinds: { type: 'string' },
    'no-faults': { type: 'boolean', default: false },
    'print-schedule': { type: 'boolean', default: false },
    'reconnect-within': { type: 'string', default: '60' },
    ci: { type: 'boolean', default: false },
  },
});

/**
 * The short form in CI (`npm test`'s last step): one run, about 4.5 minutes with linking and the
 * drain, as much as the suite's 15 minutes leave. Seed 14 at 3 minutes draws ten kinds of fault
 * (`--print-schedule`): all three outages, a SIGKILL and a SIGTERM of a worker and of the
 * dispatcher, a TCP reset, a 515 and an unknown stream error; refusal storms, version bumps and
 * keep-alive silence are left to the long runs.
 */
const CI_RUNS = [{ seed: 14, minutes: 3, sessions: 2 }];

/** Contacts write every this many ms (one message at a time), the customer sends every CUSTOMER_MS. */
const CONTACT_MS = 700;
const CUSTOMER_MS = 1_500;
/** After the traffic: wait for deliveries until all arrived or none arrived for this long. */
const DRAIN_IDLE_MS = 120_000;
const BASE_DIR = process.env.CHAOS_DIR ?? '/tmp/jumbe-chaos';

const seconds = (ms) => Math.round(ms / 100) / 10;
const phoneOf = (session) => `2547100${String(session).padStart(5, '0')}`;
const contactOf = (session, index) => `2547200${String(session * 10 + index).padStart(5, '0')}`;

/**
 * Each contact and its session write to each other once, one way then the other, before the
 * traffic, so the faults meet established Signal sessions (what a number in use has) rather than
 * a contact and a device starting sessions with each other at the same moment.
 */
async function warmUp({ sessions, network, recorder, gateway, headers }) {
  for (const session of sessions) {
    for (const contact of session.contacts) {
      const inbound = await network.sendMessage(contact, session.phone, { conversation: 'warm-up' });
      await until(async () => recorder.received.has(inbound), 120_000, `warm-up from ${contact.phoneNumber}`);
      const sent = await ok(
        `${gateway()}/api/v1/messages/text`,
        'POST',
        { sessionId: session.sessionId, to: contact.phoneNumber, text: 'warm-up' },
        headers,
      );
      await until(
        async () => network.received.some((m) => m.id === sent.data.key.id),
        120_000,
        `warm-up to ${contact.phoneNumber}`,
      );
    }
    const grouped = await network.sendGroupMessage(session.contacts[0], session.group.jid, session.phone, {
      conversation: 'warm-up',
    });
    await until(async () => recorder.received.has(grouped), 120_000, `warm-up in ${session.group.jid}`);
  }
}

/** `<commit>` or `<commit>+dirty`: what the run's snapshot of dist/ was built from. */
function codeVersion() {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** Whether the emulator still holds message `id` for `device` (unanswered or in its backlog). */
function heldByServer(device, id) {
  if (!device) return false;
  return device.unanswered.has(id) || device.backlog.some((stanza) => stanza.attrs?.id === id);
}

/** One run of the schedule of `seed`; resolves with the summary (and `ok`). */
async function run({ seed, minutes, sessions: sessionCount, kinds, faultsOn, reconnectWithinS }) {
  const schedule = faultsOn ? drawSchedule({ seed, minutes, sessions: sessionCount, kinds }) : [];
  const runDir = join(BASE_DIR, `seed-${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const logDir = join(runDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const progress = (what) =>
    process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${what}\n`);
  // libsignal (the emulator's phones, in this process) logs every session it closes and every
  // failed decryption on the console: kept in the run's directory, off the summary's stdout.
  const consoleLog = createWriteStream(join(runDir, 'emulator-console.log'));
  for (const level of ['log', 'info', 'warn', 'error', 'debug'])
    console[level] = (...items) =>
      consoleLog.write(
        `${items.map((item) => (typeof item === 'string' ? item : inspect(item))).join(' ')}\n`,
      );
  progress(
    `seed ${seed}, ${minutes} min, ${sessionCount} sessions, ${schedule.length} faults; logs in ${runDir}`,
  );

  const build = snapshotBuild(join(runDir, 'build'));
  const { WhatsAppEmulator, EmulatedNetwork } = build.require('./dist/libs/whatsapp-emulator/src/index.js');
  const { verifyDelivery } = build.require('./dist/libs/webhook-receiver/src/index.js');
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const emulatorUrl = await emulator.start();
  const adminToken = `chaos_${randomBytes(16).toString('hex')}`;
  const deployment = await createDeployment(adminToken);
  const recorder = await startWebhookRecorder(verifyDelivery);
  const errorLines = {};
  const onLine = (name, line) => {
    if (/"level":(50|60)/.test(line)) {
      const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 120);
      const counts = (errorLines[name] ??= {});
      counts[msg] = (counts[msg] ?? 0) + 1;
    }
  };
  let stack;
  try {
    stack = await startStack({ build, env: deployment.env, emulatorUrl, logDir, onLine });
    const gateway = stack.gatewayUrl;
    const accountId = await createAccount(gateway(), adminToken, { maxSessions: sessionCount });
    const key = await createKey(gateway(), adminToken, accountId);
    const headers = { 'x-api-key': key };
    const saved = await ok(
      `${gateway()}/api/v1/webhook`,
      'PATCH',
      { url: `${recorder.url}/hook`, enabled: true },
      headers,
    );
    recorder.setSecret(saved.secret);
    const status = async (sessionId) =>
      (
        await fetch(`${gateway()}/api/v1/session/status?sessionId=${sessionId}`, { headers }).then((r) =>
          r.json(),
        )
      )?.data?.state;

    // Link every session by QR, one after the other (a link uploads 812 pre-keys: CPU-heavy).
    const sessions = [];
    for (let i = 0; i < sessionCount; i += 1) {
      const sessionId = `chaos-${i}`;
      const phone = network.user(phoneOf(i), `Duka ${i}`);
      await ok(`${gateway()}/api/v1/session/start`, 'POST', { sessionId }, headers);
      const qr = await until(
        async () => {
          const shown = await ok(
            `${gateway()}/api/v1/session/qr?sessionId=${sessionId}`,
            'GET',
            undefined,
            headers,
          );
          return shown.data.state === 'qr_ready' && shown.data.qr;
        },
        120_000,
        `QR of ${sessionId}`,
      );
      const device = await network.scanQr(phone, qr);
      await until(
        async () => (await status(sessionId)) === 'connected',
        180_000,
        `${sessionId} connected`,
        500,
      );
      const contacts = [0, 1].map((c) => network.user(contactOf(i, c), `Contact ${i}.${c}`));
      const group = network.createGroup(`Chaos ${i}`, contacts[0], [phone, contacts[1]]);
      sessions.push({ sessionId, phone, device, contacts, group });
      progress(`${sessionId} linked`);
    }
    await warmUp({ sessions, network, recorder, gateway, headers });
    const devices = sessions.map((session) => session.device);

    // Traffic, and the faults one after another.
    // Each stream of traffic draws from its own PRNG, so each is the same for a seed whatever
    // the timing interleaves them (the schedule has its own too).
    const contactDraw = drawer(seededRandom(seed ^ 0x5eed));
    const customerDraw = drawer(seededRandom(seed ^ 0xc057));
    const contactsTraffic = startContactTraffic({
      network,
      sessions,
      draw: contactDraw,
      intervalMs: CONTACT_MS,
    });
    const customer = startCustomerTraffic({
      gatewayUrl: gateway,
      key,
      sessions,
      draw: customerDraw,
      intervalMs: CUSTOMER_MS,
    });
    const startedAt = Date.now();
    const injected = [];
    for (const fault of schedule) {
      const wait = fault.at * 1000 - (Date.now() - startedAt);
      if (wait > 0) await pause(wait);
      progress(
        `fault ${fault.index}: ${fault.kind} ${JSON.stringify({ ...fault, kind: undefined, index: undefined })}`,
      );
      const outcome = await runFault(fault, { stack, network, devices }, pause).catch((error) => ({
        error: String(error?.message ?? error),
      }));
      injected.push({
        ...fault,
        atS: seconds((outcome.injectedAt ?? Date.now()) - startedAt),
        healedAtS: seconds((outcome.healedAt ?? Date.now()) - startedAt),
        ...outcome,
        injectedAt: undefined,
        healedAt: undefined,
      });
    }
    const lastHealAt = injected.length > 0 ? startedAt + injected.at(-1).healedAtS * 1000 : startedAt;

    // Every session connected again (the API says so and the emulator sees the device logged in)
    // within the window after the last fault healed; the traffic goes on meanwhile.
    const reconnected = new Map();
    const watchReconnects = async (deadline) => {
      while (reconnected.size < sessions.length && Date.now() < deadline) {
        for (const session of sessions) {
          if (reconnected.has(session.sessionId)) continue;
          const state = await status(session.sessionId).catch(() => null);
          if (state === 'connected' && network.connectionOf(session.device))
            reconnected.set(session.sessionId, Date.now() - lastHealAt);
        }
        await pause(1_000);
      }
    };
    const watcher = watchReconnects(lastHealAt + reconnectWithinS * 1000);
    const trafficLeft = minutes * 60_000 - (Date.now() - startedAt);
    if (trafficLeft > 0) await pause(trafficLeft);
    progress('traffic stops');
    await contactsTraffic.stop();
    await customer.stop();
    await watcher;

    // Drain: every contact message at the webhook and every accepted send at the contact's phone,
    // or nothing new for DRAIN_IDLE_MS.
    progress('draining');
    const progressMark = () =>
      `${[...recorder.received.values()].reduce((n, r) => n + r.length, 0)}/${network.received.length}`;
    let mark = progressMark();
    for (let quietSince = Date.now(); Date.now() - quietSince < DRAIN_IDLE_MS; await pause(1_000)) {
      const allIn = contactsTraffic.sent.every((message) => recorder.received.has(message.id));
      if (allIn && customerSettled(customer.sends, network.received)) break;
      const now = progressMark();
      if (now !== mark) [mark, quietSince] = [now, Date.now()];
    }

    // Sessions at the end: connected, and on the device they were linked with (no rescan).
    const finalStates = {};
    let credentialsLost = 0;
    for (const session of sessions) {
      const state = await status(session.sessionId).catch(() => 'unknown');
      finalStates[session.sessionId] = state;
      const relinked = network.linkedDevices(session.phone).length !== 1;
      if (
        state === 'qr_ready' ||
        state === 'pairing_code_ready' ||
        relinked ||
        !network.linkedDevices(session.phone).includes(session.device)
      )
        credentialsLost += 1;
    }
    const deviceOf = (sessionId) => sessions.find((session) => session.sessionId === sessionId)?.device;
    const inbound = inboundVerdict(contactsTraffic.sent, recorder.received);
    const sends = customerVerdict(customer.sends, network.received, network.failures);
    const stranded = sessions
      .filter((session) => !reconnected.has(session.sessionId))
      .map((s) => s.sessionId);
    const summary = {
      seed,
      minutes,
      sessions: sessionCount,
      faults: injected.filter((fault) => !fault.notInjected && !fault.error).length,
      sent: inbound.sent,
      delivered: inbound.delivered,
      lost: inbound.lost.length,
      duplicates: inbound.duplicates,
      redeliveries: inbound.redeliveries,
      outOfOrder: inbound.outOfOrder.length,
      misrouted: inbound.misrouted,
      stranded: stranded.length,
      strandedSessions: stranded,
      reconnectedWithinS: Object.fromEntries([...reconnected].map(([id, ms]) => [id, seconds(ms)])),
      finalStates,
      credentialsLost,
      customerSends: sends.customerSends,
      customerSendOk: sends.customerSendOk,
      customerSendErrors: sends.customerSendErrors,
      customerSendErrorCodes: sends.customerSendErrorCodes,
      silentlyDropped: sends.silentlyDropped.length,
      undecryptableByContact: sends.undecryptable.length,
      answeredErrorButDelivered: sends.answeredErrorButDelivered.length,
      idMismatch: sends.idMismatch.length,
      unanswered: sends.unanswered.length,
      contactSendErrors: contactsTraffic.errors.length,
      badSignatures: recorder.counts.badSignatures,
      emulatorDecryptFailures: network.failures.length,
      // Where each lost message is: still held by the server for the device (never acknowledged,
      // so WhatsApp would send it again) or acknowledged and gone (lost for good).
      lostHeldByServer: inbound.lost.filter((m) => heldByServer(deviceOf(m.sessionId), m.id)).length,
      lostMessages: inbound.lost.slice(0, 20).map((m) => ({
        id: m.id,
        sessionId: m.sessionId,
        kind: m.kind,
        atS: seconds(m.at - startedAt),
        heldByServer: heldByServer(deviceOf(m.sessionId), m.id),
      })),
      outOfOrderMessages: inbound.outOfOrder.slice(0, 20).map((m) => ({
        chat: m.chat,
        seq: m.seq,
        sentAtS: seconds(m.at - startedAt),
        arrivedAtS: seconds(m.arrivedAt - startedAt),
        overtook: {
          seq: m.before.seq,
          sentAtS: seconds(m.before.at - startedAt),
          arrivedAtS: seconds(m.before.arrivedAt - startedAt),
        },
      })),
      faultList: injected,
      // Faults the emulator in use cannot inject (drawn, skipped, named here).
      notInjected: injected
        .filter((fault) => fault.notInjected)
        .map((fault) => `${fault.kind}: ${fault.notInjected}`),
      errorLines: Object.fromEntries(
        Object.entries(errorLines).map(([name, counts]) => [
          name,
          Object.values(counts).reduce((a, b) => a + b, 0),
        ]),
      ),
      logs: runDir,
      // The code under test: the commit, and whether the tree had uncommitted changes (built too).
      code: codeVersion(),
    };
    summary.ok =
      summary.lost === 0 &&
      summary.duplicates === 0 &&
      summary.outOfOrder === 0 &&
      summary.misrouted === 0 &&
      summary.stranded === 0 &&
      summary.credentialsLost === 0 &&
      summary.silentlyDropped === 0 &&
      summary.undecryptableByContact === 0 &&
      summary.answeredErrorButDelivered === 0 &&
      summary.idMismatch === 0 &&
      summary.unanswered === 0 &&
      summary.badSignatures === 0 &&
      summary.sent > 0;
    writeFileSync(
      join(runDir, 'summary.json'),
      `${JSON.stringify(
        {
          ...summary,
          errorMessages: errorLines,
          details: {
            inbound,
            sends,
            sent: contactsTraffic.sent,
            receipts: Object.fromEntries(recorder.received),
            emulatorFailures: network.failures.map((f) => ({
              id: f.stanza?.attrs?.id,
              to: f.stanza?.attrs?.to,
              error: String(f.error),
            })),
            contactErrors: contactsTraffic.errors.slice(0, 50),
            customerSends: customer.sends,
          },
        },
        null,
        2,
      )}\n`,
    );
    return summary;
  } finally {
    progress('stopping');
    await stack?.stop().catch(() => undefined);
    await recorder.close();
    await emulator.stop().catch(() => undefined);
    await deployment.drop().catch(() => undefined);
  }
}

async function main() {
  const kinds = args.kinds?.split(',');
  for (const kind of kinds ?? []) if (!FAULT_KINDS[kind]) throw new Error(`unknown fault kind ${kind}`);
  const runs = args.ci
    ? CI_RUNS
    : [
        {
          seed: Number(args.seed ?? Math.floor(Math.random() * 1e6)),
          minutes: Number(args.minutes),
          sessions: Number(args.sessions),
        },
      ];
  if (args['print-schedule']) {
    for (const each of runs) process.stdout.write(`${JSON.stringify(drawSchedule({ ...each, kinds }))}\n`);
    return 0;
  }
  let failed = 0;
  for (const each of runs) {
    const summary = await run({
      ...each,
      kinds,
      faultsOn: !args['no-faults'],
      reconnectWithinS: Number(args['reconnect-within']),
    });
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    if (!summary.ok) failed += 1;
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    killAll();
    process.exit(2);
  },
);
