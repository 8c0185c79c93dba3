import { SECRET_PURPOSES, SecretBox } from '../crypto';
import { WebhookVault } from './webhook-vault';

describe('WebhookVault', () => {
  const key = 'a-secret-key-of-enough-length-0123456789';
  const vault = new WebhookVault(key);

  it('stores a URL with a token masked, and opens the full URL back', () => {
    const stored = vault.storableUrl('https://hooks.example.com/in?token=s3cr3t');
    expect(stored.url).toBe('https://hooks.example.com/in?token=****');
    expect(stored.urlCiphertext).not.toBeNull();
    expect(stored.urlCiphertext).not.toContain('s3cr3t');
    expect(vault.openUrl(stored)).toBe('https://hooks.example.com/in?token=s3cr3t');
  });

  it('stores a URL without secrets as it is, and a row stored before sealing still opens', () => {
    expect(vault.storableUrl('https://hooks.example.com/in')).toEqual({
      url: 'https://hooks.example.com/in',
      urlCiphertext: null,
    });
    const legacy = { url: 'https://hooks.example.com/in?token=old', urlCiphertext: null };
    expect(vault.openUrl(legacy)).toBe('https://hooks.example.com/in?token=old');
  });

  it('seals URLs under their own key: the signing-secret key cannot open them, nor another deployment', () => {
    const stored = vault.storableUrl('https://hooks.example.com/in?token=s3cr3t');
    const signingBox = new SecretBox(key, SECRET_PURPOSES.webhookSigningSecret);
    expect(() => signingBox.openText(stored.urlCiphertext!)).toThrow();
    expect(() => new WebhookVault(`${key}-other`).openUrl(stored)).toThrow();
    expect(vault.openSigningSecret(vault.sealSigningSecret('whsec_abc'))).toBe('whsec_abc');
    expect(signingBox.openText(vault.sealSigningSecret('whsec_abc'))).toBe('whsec_abc');
  });
});
