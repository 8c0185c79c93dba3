import './trust-preload';
import { DriverHarness, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

describe('linking a device by pairing code against the emulator', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
  });
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('the code the product shows, typed into the phone, links the device and it connects', async () => {
    const { session, links } = await harness.open('by-code');
    await until(() => links.find((event) => event.type === 'qr'));
    const phone = network.user('254700000040', 'Salon');

    const code = await session.requestPairingCode('254700000040');
    expect(links).toContainEqual({ type: 'pairing_code', code });
    const device = await network.enterPairingCode(phone, code);

    const connected = await until(() => links.find((event) => event.type === 'connected'), 20_000);
    expect(connected).toEqual({ type: 'connected', phoneNumber: '254700000040' });
    expect(device.device).toBe(1);
  }, 40_000);

  it('a wrong code cannot complete the exchange', async () => {
    const { session, links } = await harness.open('wrong-code');
    await until(() => links.find((event) => event.type === 'qr'));
    const phone = network.user('254700000041');
    const code = await session.requestPairingCode('254700000041');
    const wrong = code.slice(0, 7) + (code[7] === 'A' ? 'B' : 'A');

    // The phone's key is wrapped with another code: the device's key bundle fails authentication.
    await expect(network.enterPairingCode(phone, wrong)).rejects.toThrow(/authenticate/);
    expect(network.linkedDevices(phone)).toEqual([]);
    expect(links.map((event) => event.type)).not.toContain('connected');
  }, 40_000);
});
