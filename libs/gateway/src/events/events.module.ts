import { Module } from '@nestjs/common';
import { EventStreams } from './event-streams';
import { EventsController } from './events.controller';

/** Live event streams (`GET /api/v1/events`): SSE and WebSocket. */
@Module({
  controllers: [EventsController],
  providers: [EventStreams],
  exports: [EventStreams],
})
export class EventsModule {}
