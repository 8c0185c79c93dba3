export * from './http-client';
export * from './service-process';
export * from './tcp-proxy';
export * from './recording-receiver';
export * from './timing';
export * from './failing-receiver';
