export * from './webhook-dispatcher.module';
