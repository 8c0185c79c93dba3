import { z } from 'zod';
import { phoneNumberField, sessionIdField } from './common';

export const qrQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  format: z
    .enum(['json', 'png', 'svg'])
    .default('json')
    .describe('`png` or `svg` return the QR as an image.'),
});

export const pairingCodeSchema = z.strictObject({ sessionId: sessionIdField, phoneNumber: phoneNumberField });
