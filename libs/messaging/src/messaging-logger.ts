/** Where the messaging adapters report connection events; a plain callback so any logger fits. */
export type MessagingLogger = (message: string, error?: unknown) => void;
