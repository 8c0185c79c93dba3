import { SecretBox } from '../crypto/secret-box';
import { SECRET_PURPOSES } from '../crypto/secret-purposes';
import { maskWebhookUrl, webhookUrlHasSecrets } from './masked-webhook-url';

/** A webhook URL as stored: the form that may be shown, and the full URL sealed when they differ. */
export interface StorableWebhookUrl {
  url: string;
  urlCiphertext: string | null;
}

/**
 * Seals and opens what a webhook keeps secret at rest: its signing secret, and the credentials a
 * customer put in its URL (each under its own derived key). The gateway seals, the dispatchers
 * open; nothing else ever sees either in clear.
 */
export class WebhookVault {
  private readonly signingSecrets: SecretBox;
  private readonly urls: SecretBox;

  constructor(secretKey: string) {
    this.signingSecrets = new SecretBox(secretKey, SECRET_PURPOSES.webhookSigningSecret);
    this.urls = new SecretBox(secretKey, SECRET_PURPOSES.webhookUrl);
  }

  sealSigningSecret(secret: string): string {
    return this.signingSecrets.seal(secret);
  }

  openSigningSecret(ciphertext: string): string {
    return this.signingSecrets.openText(ciphertext);
  }

  /** The URL to store: as given when it holds no secrets, else masked, with the full URL sealed. */
  storableUrl(url: string): StorableWebhookUrl {
    if (!webhookUrlHasSecrets(url)) return { url, urlCiphertext: null };
    return { url: maskWebhookUrl(url), urlCiphertext: this.urls.seal(url) };
  }

  /** The full URL to post to (rows stored before URLs were sealed have it in `url`). */
  openUrl(stored: StorableWebhookUrl): string {
    return stored.urlCiphertext === null ? stored.url : this.urls.openText(stored.urlCiphertext);
  }
}
