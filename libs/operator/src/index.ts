export * from './operator.service';
export * from './views';
