import { createServer } from 'node:net';

/**
 * A TCP port that is free on 127.0.0.1 right now (the OS picks it). Another process could take it
 * before PostgreSQL binds it; that fails the start loudly rather than silently.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('Could not pick a free port'));
      });
    });
  });
}
