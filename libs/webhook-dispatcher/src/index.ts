export * from './webhook-dispatcher.module';
export * from './ports';
