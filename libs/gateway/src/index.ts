export * from './auth/customer-auth.guard';
export * from './auth/principal';
export * from './bootstrap/create-http-app';
export * from './gateway.module';
export * from './gateway.tokens';
export * from './http/validated-input.decorators';
export * from './metering/usage-meter';
export * from './openapi/openapi-document';
