/** Readiness probe of the coordination store: resolves when usable, rejects with CoordinationUnavailableError. */
export interface CoordinationHealth {
  check(): Promise<void>;
}
