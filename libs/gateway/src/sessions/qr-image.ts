import QRCode from 'qrcode';

/** Renders a QR value as an image for clients that cannot draw one themselves. */
export async function renderQr(
  value: string,
  format: 'png' | 'svg',
): Promise<{ contentType: string; body: Buffer | string }> {
  if (format === 'svg') {
    return { contentType: 'image/svg+xml', body: await QRCode.toString(value, { type: 'svg', margin: 2 }) };
  }
  return {
    contentType: 'image/png',
    body: await QRCode.toBuffer(value, { type: 'png', margin: 2, scale: 6 }),
  };
}
