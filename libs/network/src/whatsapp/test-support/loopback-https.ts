import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A self-signed certificate for 127.0.0.1 (valid for 100 years). Made with: openssl req -x509
 * -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 -subj "/CN=hooks.test"
 * -addext "subjectAltName=DNS:hooks.test,IP:127.0.0.1"
 */
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg41x+4Ok36L9/G5lt
VwNEGcjP1HrWrY4V19Okd8k62ROhRANCAATRWY9m/eYuxnRL68z3HfSD/YzgkajG
p6fm4V18riRvEvPvjJc+ka35uesaRVbekozVzOynyLBgloYF8ZUKIC3N
-----END PRIVATE KEY-----
`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBnTCCAUSgAwIBAgIUUGEG60uEchytTXJWSgaXgNmgc1wwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKaG9va3MudGVzdDAgFw0yNjExMjIwMDAwMDFaGA8yMTI2MTAy
OTAwMDAwMVowFTETMBEGA1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABNFZj2b95i7GdEvrzPcd9IP9jOCRqManp+bhXXyuJG8S8++Mlz6R
rfm56xpFVt6SjNXM7KfIsGCWhgXxlQogLc2jcDBuMB0GA1UdDgQWBBQn7bX5Tc8/
vTlTrub1jd7x1t5ZrTAfBgNVHSMEGDAWgBQn7bX5Tc8/vTlTrub1jd7x1t5ZrTAP
BgNVHRMBAf8EBTADAQH/MBsGA1UdEQQUMBKCCmhvb2tzLnRlc3SHBH8AAAEwCgYI
KoZIzj0EAwIDRwAwRAIgCFwFQ2NcuQlGCq3aGLTh+AB7Z9AHgU2iYHKbuR2PFMoC
IC/YsYgF78Po15zdH5/qVoLKuim6DdAc33LVfC/oK13h
-----END CERTIFICATE-----
`;

/** A media server stand-in on 127.0.0.1 over HTTPS: answers each path with a status and bytes. */
export interface LoopbackMediaServer {
  /** `127.0.0.1:<port>`: what a test passes as the driver's media host. */
  host: string;
  files: Map<string, { status: number; body: Buffer }>;
  /** Every path asked for, in order. */
  requested: string[];
  close(): Promise<void>;
}

export async function startLoopbackMediaServer(): Promise<LoopbackMediaServer> {
  const files = new Map<string, { status: number; body: Buffer }>();
  const requested: string[] = [];
  const server = https.createServer({ key: KEY, cert: CERT }, (request, response) => {
    requested.push(request.url ?? '');
    const file = files.get(request.url ?? '') ?? { status: 404, body: Buffer.alloc(0) };
    response.writeHead(file.status, { 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    files,
    requested,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
