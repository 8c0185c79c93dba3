import { sessionProxyBinding, type SealedSessionRef } from '../crypto/sealed-value-bindings';
import { SecretBox } from '../crypto/secret-box';
import { SECRET_PURPOSES } from '../crypto/secret-purposes';

/**
 * Seals a session's proxy URL (its password included) at rest, under its own derived key and
 * bound to the session it belongs to, so a value copied to another session's row fails to open.
 * The gateway seals; the worker that connects the session opens; nothing else sees it in clear.
 */
export class SessionProxyVault {
  private readonly box: SecretBox;

  constructor(secretKey: string) {
    this.box = new SecretBox(secretKey, SECRET_PURPOSES.sessionProxy);
  }

  seal(ref: SealedSessionRef, url: string): string {
    return this.box.sealBytes(url, sessionProxyBinding(ref)).toString('base64url');
  }

  /** Throws when the value was not sealed for this session with this secret key. */
  open(ref: SealedSessionRef, sealed: string): string {
    return this.box.openBytes(Buffer.from(sealed, 'base64url'), sessionProxyBinding(ref)).toString('utf8');
  }
}
