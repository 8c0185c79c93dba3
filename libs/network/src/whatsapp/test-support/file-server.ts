import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP server serving fixed files: the only peer media tests ever download from. */
export interface FileServer {
  origin: string;
  close(): Promise<void>;
}

export async function startFileServer(
  files: Record<string, { type: string; body: Buffer }>,
): Promise<FileServer> {
  const server = http.createServer((request, response) => {
    const file = files[request.url ?? ''];
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
