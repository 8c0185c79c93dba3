import { credentialBinding, SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { NotReadyError } from '../not-ready-error';
import type { SessionRef } from '../session-ref';
import type { CredentialStore } from '../whatsapp/credential-store';

const KIND = 'sandbox';
const LINK = 'link';

/** Where sandbox devices keep their links: the credential store, sealed with JUMBE_SECRET_KEY. */
export interface SandboxCredentialKeeping {
  credentials: CredentialStore;
  secretKey: string;
}

/**
 * What a sandbox device keeps of its link, as a WhatsApp device keeps its keys: the number it is
 * linked to, sealed like every credential (so a secret-key rotation re-seals it too) and stored in
 * `network_credentials` under the shard's fencing token. The all-in-one's simulated network lives
 * in the process's memory; after a restart the device presents this and the network resumes the
 * link (SandboxStore.resumeLink). The worker clears it with the rest of the credentials at logout.
 */
export class SandboxCredentials {
  private readonly address: string;

  constructor(
    private readonly store: CredentialStore,
    private readonly cipher: SecretBox,
    private readonly ref: SessionRef,
    private readonly token: number,
  ) {
    this.address = credentialBinding(ref, KIND, LINK);
  }

  static cipherOf(keeping: SandboxCredentialKeeping): SecretBox {
    return new SecretBox(keeping.secretKey, SECRET_PURPOSES.networkCredentials);
  }

  /** Stores the linked number; NotReadyError when a newer owner holds the session. */
  async keep(phoneNumber: string): Promise<void> {
    const value = this.cipher.sealBytes(Buffer.from(phoneNumber, 'utf8'), this.address);
    const result = await this.store.write(this.ref, this.token, [{ kind: KIND, keyId: LINK, value }]);
    if (result === 'fenced') {
      throw new NotReadyError('the session moved to another worker while the phone was linking');
    }
  }

  /** The number this device was linked to, or null when it holds no link. */
  async linkedNumber(): Promise<string | null> {
    const sealed = (await this.store.read(this.ref, KIND, [LINK])).get(LINK);
    if (sealed === undefined) return null;
    try {
      return this.cipher.openBytes(sealed, this.address).toString('utf8');
    } catch {
      throw new Error(
        'the stored sandbox link cannot be decrypted: JUMBE_SECRET_KEY differs from the key it was saved with',
      );
    }
  }
}
