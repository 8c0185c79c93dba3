import type { Credential } from './api';

/** What the signed-in person may do, found out from the API itself. */
export interface Identity {
  credential: Credential;
  readOnly: boolean;
  sandbox: boolean;
}
