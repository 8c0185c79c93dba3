import { routeConsoleToLog } from './console-to-log';
import { createLogger } from './logger';

describe('routeConsoleToLog', () => {
  const saved = { ...console };
  afterEach(() => Object.assign(console, saved));

  it("keeps a library's console text in the log and never the objects it prints (libsignal's sessions)", () => {
    const lines: string[] = [];
    routeConsoleToLog(createLogger('debug', 'test', { write: (line: string) => (lines.push(line), true) }));
    // What libsignal's SessionRecord.closeSession prints when a contact's session is replaced.
    const privKey = Buffer.from('a1b2c3d4e5f60718293a4b5c6d7e8f90', 'hex');
    console.info('Closing session:', { currentRatchet: { ephemeralKeyPair: { privKey } }, rootKey: privKey });
    console.error('Session error:Error: Bad MAC', 'at decrypt (session_cipher.js)');

    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; source: string });
    expect(logged).toEqual([
      expect.objectContaining({ level: 20, source: 'console', msg: 'Closing session:' }),
      expect.objectContaining({
        level: 40,
        msg: 'Session error:Error: Bad MAC at decrypt (session_cipher.js)',
      }),
    ]);
    const output = lines.join('');
    expect(output).not.toContain('a1b2c3d4');
    expect(output).not.toContain('privKey');
    expect(output).not.toContain(privKey.toString('base64'));
  });
});
