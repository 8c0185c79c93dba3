export * from './credential-store';
export * from './session-store';
export * from './session-worker-ports';
export * from './media-file-store';
export * from './webhook-subscription-lookup';
export * from './expired-message-sweeper';
export * from './call-settings-store';
