// The framework's floor: NestJS 11 on Fastify (the product's HTTP stack) with one controller that
// parses the same JSON body as POST /messages/text and answers the same shape as
// baseline-server.mjs — no auth, quota, validation, bus, logging or network behind it. Set beside
// bare Fastify, it shows what the design's framework costs per request before any of Jumbe's own
// work: a ceiling for the all-in-one's ratio to bare Fastify. Plain JavaScript, so the decorators
// are applied as the functions they are.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';

class MessagesController {
  send(body) {
    return {
      message: 'Message sent',
      data: {
        key: {
          remoteJid: `${body.to}@s.whatsapp.net`,
          fromMe: true,
          id: `3EB0${randomBytes(8).toString('hex').toUpperCase()}`,
        },
      },
    };
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
process.stdout.write(`${JSON.stringify({ url: await app.getUrl(), msg: 'nest baseline listening' })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
