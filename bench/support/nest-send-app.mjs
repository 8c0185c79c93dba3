// One NestJS 11 app on Fastify (the product's HTTP stack) with a single controller for
// POST /api/v1/messages/text that answers `send(body)` with 201, and nothing else (no guard,
// interceptor, pipe, logger or metrics): the framework around a bench baseline's own work. Plain
// JavaScript, so the decorators are applied as the functions they are.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/** Listens on a free port of 127.0.0.1 and announces its URL as the bench's servers do. */
export async function serveSendOnNest(send, announcement) {
  class MessagesController {
    send(body) {
      return send(body);
    }
  }
  const method = Object.getOwnPropertyDescriptor(MessagesController.prototype, 'send');
  Reflect.decorate(
    [Post('api/v1/messages/text'), HttpCode(201)],
    MessagesController.prototype,
    'send',
    method,
  );
  Body()(MessagesController.prototype, 'send', 0);
  Controller()(MessagesController);

  class AppModule {}
  Module({ controllers: [MessagesController] })(AppModule);

  const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`${JSON.stringify({ url: await app.getUrl(), msg: announcement })}\n`);
  return app;
}
