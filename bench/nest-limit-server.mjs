// The stack's limit on the product's framework: the same round trips as stack-limit-server.mjs
// (one Redis EVALSHA, one NATS request/reply to the bare responder), behind one NestJS 11
// controller on Fastify as in nest-baseline-server.mjs, and nothing else. Beside the limit it
// shows what the framework costs on the distributed path; beside Jumbe's gateway and worker, what
// Jumbe adds beyond the framework and the round trips its design needs.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { connectLimitRoundTrips } from './support/limit-round-trips.mjs';

const roundTrips = await connectLimitRoundTrips('nest-limit-counter');

class MessagesController {
  send(body) {
    return roundTrips.send(body);
  }
}
const send = Object.getOwnPropertyDescriptor(MessagesController.prototype, 'send');
Reflect.decorate([Post('api/v1/messages/text'), HttpCode(201)], MessagesController.prototype, 'send', send);
Body()(MessagesController.prototype, 'send', 0);
Controller()(MessagesController);

class AppModule {}
Module({ controllers: [MessagesController] })(AppModule);

const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
await app.listen(0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ url: await app.getUrl(), msg: 'nest limit listening' })}\n`);
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => roundTrips.close())
      .then(() => process.exit(0)),
);
