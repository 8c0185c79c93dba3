// The part of `ws` (Baileys' own WebSocket dependency) the emulator uses; no @types package needed.
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { AddressInfo } from 'node:net';

  export class WebSocket extends EventEmitter {
    send(data: Uint8Array): void;
    close(code?: number): void;
    terminate(): void;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: { host?: string; port?: number; path?: string });
    address(): AddressInfo | string;
    close(callback?: () => void): void;
  }
}
