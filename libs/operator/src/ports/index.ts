export * from './account-activity';
export * from './account-store';
export * from './api-key-store';
export * from './operator-ports';
export * from './plan-store';
export * from './schema-migrations';
