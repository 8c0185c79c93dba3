import type { EmulatedConnection } from './emulator';
import { EmulatedUser } from './emulated-user';
import type { EmulatedGroup } from './groups';
import { unixNow } from './iq-nodes';
import { deviceJid, deviceNumberOf, type LinkedDevice, takePreKeyBundle } from './linked-device';
import type { PreKeyBundle } from './signal-party';

/**
 * Who is on the emulated network: users (by phone number and by LID), the devices their phones
 * linked, which connection each device is logged in on, and the groups. Every other part of the
 * network looks things up here; none keeps its own copy.
 */
export class NetworkDirectory {
  readonly groups = new Map<string, EmulatedGroup>();
  private readonly usersByPhone = new Map<string, EmulatedUser>();
  private readonly usersByLid = new Map<string, EmulatedUser>();
  private readonly devices = new Map<string, LinkedDevice>();
  private readonly online = new Map<string, EmulatedConnection>();
  private nextLid = 100_000_000_000_001;
  private nextGroup = 1;

  /** The user with this phone number, created on first use (with a fresh LID and keys). */
  user(phoneNumber: string, name = `User ${phoneNumber.slice(-4)}`): EmulatedUser {
    const existing = this.usersByPhone.get(phoneNumber);
    if (existing) return existing;
    const user = new EmulatedUser(phoneNumber, String(this.nextLid++), name);
    this.usersByPhone.set(phoneNumber, user);
    this.usersByLid.set(user.lidUser, user);
    return user;
  }

  /** The user a PN or LID JID (any device) or a `+digits` phone number belongs to. */
  findUser(jidOrPhone: string): EmulatedUser | undefined {
    const [userPart, server] = jidOrPhone.replace(/^\+/, '').split('@');
    const user = (userPart ?? '').split(':')[0] ?? '';
    return server === 'lid' ? this.usersByLid.get(user) : this.usersByPhone.get(user);
  }

  /** The devices a user's phone has linked. */
  linkedDevices(user: EmulatedUser): LinkedDevice[] {
    return [...this.devices.values()].filter((device) => device.user === user);
  }

  /** The phone (0) and every device it linked. */
  deviceNumbers(user: EmulatedUser): number[] {
    return [0, ...this.linkedDevices(user).map((device) => device.device)];
  }

  /** The linked device with this JID (`<phone>:<device>@s.whatsapp.net`), if the phone still has it. */
  device(jid: string): LinkedDevice | undefined {
    return this.devices.get(jid);
  }

  link(device: LinkedDevice): void {
    this.devices.set(deviceJid(device), device);
  }

  unlink(device: LinkedDevice): void {
    this.devices.delete(deviceJid(device));
  }

  /** The connection a linked device is logged in on, if any. */
  connectionOf(device: LinkedDevice): EmulatedConnection | undefined {
    return this.online.get(deviceJid(device));
  }

  /** The connection logged in as this device JID, if any. */
  connectionAt(jid: string): EmulatedConnection | undefined {
    return this.online.get(jid);
  }

  setOnline(jid: string, connection: EmulatedConnection): void {
    this.online.set(jid, connection);
  }

  /** Forgets every login on a closed connection; returns the devices that were logged in on it. */
  takeOffline(connection: EmulatedConnection): LinkedDevice[] {
    const wentOffline: LinkedDevice[] = [];
    for (const [jid, online] of this.online) {
      if (online !== connection) continue;
      this.online.delete(jid);
      const device = this.devices.get(jid);
      if (device) wentOffline.push(device);
    }
    return wentOffline;
  }

  /** The bundle a device JID publishes: a user's phone (device 0) or one of its linked devices. */
  bundleOf(jid: string): PreKeyBundle | undefined {
    const user = this.findUser(jid);
    if (!user) return undefined;
    const number = deviceNumberOf(jid);
    if (number === 0) return user.phone.bundle();
    const device = this.linkedDevices(user).find((candidate) => candidate.device === number);
    return device ? takePreKeyBundle(device) : undefined;
  }

  /** `120363…@g.us`, counting up (shared by test-made groups and groups devices create). */
  newGroupJid(): string {
    return `1203630${String(this.nextGroup++).padStart(11, '0')}@g.us`;
  }

  /** Registers a group `creator` made with `members` (the creator is a member too). */
  createGroup(
    subject: string,
    creator: EmulatedUser,
    members: EmulatedUser[],
    addressing: 'pn' | 'lid',
  ): EmulatedGroup {
    const jid = this.newGroupJid();
    const group: EmulatedGroup = {
      jid,
      subject,
      creator,
      members: [creator, ...members.filter((member) => member !== creator)],
      creation: Number(unixNow()),
      addressing,
    };
    this.groups.set(jid, group);
    return group;
  }
}
