import './trust-preload';
import { GroupActionError, type GroupEvent } from '@jumbe/network';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

/**
 * Issue 30 item 2: the product's WhatsApp driver manages groups through the real Baileys against
 * the emulator's `w:g2` IQs, and reports the `w:gp2` notifications every member's devices get.
 */
describe('groups through the WhatsApp driver', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000130', 'Duka');
  const akinyi = network.user('254711000130', 'Akinyi');
  const baraka = network.user('254711000131', 'Baraka');
  const chebet = network.user('254711000132', 'Chebet');
  const kibanda = network.user('254700000131', 'Kibanda');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let second: OpenedSession;
  let groupId = '';

  const reported = <K extends GroupEvent['kind']>(
    kind: K,
    test: (event: Extract<GroupEvent, { kind: K }>) => boolean,
  ) =>
    until(
      () =>
        opened.groupEvents.find(
          (event): event is Extract<GroupEvent, { kind: K }> =>
            event.kind === kind && test(event as Extract<GroupEvent, { kind: K }>),
        ),
      10_000,
    );

  beforeAll(async () => {
    network.groupAdmin.refuseAdds(chebet);
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'groups');
    second = await harness.link(network, kibanda, 'groups-2');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('creates a group whose info lists the members, the number as its creator and admin', async () => {
    const created = await opened.session.groups().create('Wauzaji', [akinyi.jid]);
    groupId = created.id;
    expect(groupId).toMatch(/@g\.us$/);
    const info = await opened.session.groups().info(groupId);
    expect(info).toMatchObject({ subject: 'Wauzaji', settings: { announcementOnly: false, locked: false } });
    expect(info.participants).toEqual(
      expect.arrayContaining([
        { id: phone.jid, phoneNumber: '254700000130', isAdmin: true, isSuperAdmin: true },
        { id: akinyi.jid, phoneNumber: '254711000130', isAdmin: false, isSuperAdmin: false },
      ]),
    );
    expect((await opened.session.groups().list()).map((group) => group.id)).toContain(groupId);
  }, 20_000);

  it('adds members one result each: the one whose privacy refuses adds is refused with 403', async () => {
    const results = await opened.session
      .groups()
      .changeParticipants(groupId, 'add', [baraka.jid, chebet.jid]);
    expect(results).toEqual([
      { participant: baraka.jid, ok: true, status: 200, reason: null },
      { participant: chebet.jid, ok: false, status: 403, reason: 'not_allowed' },
    ]);
    const event = await reported('participants', (change) => change.action === 'add');
    expect(event).toMatchObject({ groupId, participants: [baraka.jid], author: phone.jid });
    // The cached metadata was dropped: info shows the new member at once.
    const members = (await opened.session.groups().info(groupId)).participants.map((member) => member.id);
    expect(members).toEqual(expect.arrayContaining([baraka.jid]));
    expect(members).not.toContain(chebet.jid);
  }, 20_000);

  it('promotes a member to admin', async () => {
    const [result] = await opened.session.groups().changeParticipants(groupId, 'promote', [akinyi.jid]);
    expect(result).toMatchObject({ ok: true, status: 200 });
    await reported('participants', (change) => change.action === 'promote');
    const info = await opened.session.groups().info(groupId);
    expect(info.participants.find((member) => member.id === akinyi.jid)).toMatchObject({ isAdmin: true });
    expect(network.groupAdmin.adminsOf(groupId)).toContain(akinyi);
  }, 20_000);

  it('changes the subject, description and settings, each reported as group.updated', async () => {
    const info = await opened.session
      .groups()
      .update(groupId, { subject: 'Wauzaji wa Soko', description: 'Bei za leo', announcementOnly: true });
    expect(info).toMatchObject({
      subject: 'Wauzaji wa Soko',
      description: 'Bei za leo',
      settings: { announcementOnly: true, locked: false },
    });
    const subject = await reported('updated', (change) => change.changes.subject !== undefined);
    expect(subject).toMatchObject({ groupId, changes: { subject: 'Wauzaji wa Soko' }, author: phone.jid });
    await reported('updated', (change) => change.changes.announcementOnly === true);
  }, 20_000);

  it('revokes the invite link: the old code no longer joins, the new one does', async () => {
    const before = await opened.session.groups().inviteCode(groupId);
    const after = await opened.session.groups().revokeInvite(groupId);
    expect(after).not.toBe(before);
    expect(network.groupAdmin.inviteCodeOf(groupId)).toBe(after);
    await reported('updated', (change) => change.changes.inviteRevoked === true);
    await expect(second.session.groups().join(before)).rejects.toMatchObject({ code: 'not_found' });
    expect(await second.session.groups().join(after)).toBe(groupId);
    const joined = await reported('participants', (change) => change.participants.includes(kibanda.jid));
    expect(joined).toMatchObject({ action: 'add', author: kibanda.jid });
  }, 20_000);

  it('refuses what the number may not do as the caller’s error, not the network’s', async () => {
    await expect(opened.session.groups().info('120363099999999999@g.us')).rejects.toBeInstanceOf(
      GroupActionError,
    );
    await expect(opened.session.groups().join('AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({
      code: 'not_found',
    });
  }, 20_000);

  it('leaves the group: reported as its own removal, and the group is gone from the list', async () => {
    await opened.session.groups().leave(groupId);
    await reported(
      'participants',
      (change) => change.action === 'remove' && change.participants.includes(phone.jid),
    );
    expect((await opened.session.groups().list()).map((group) => group.id)).not.toContain(groupId);
    await expect(opened.session.groups().info(groupId)).rejects.toMatchObject({ code: 'forbidden' });
  }, 20_000);

  it('delivers no group notification as a received message', () => {
    expect(opened.inbound).toEqual([]);
  });
});
