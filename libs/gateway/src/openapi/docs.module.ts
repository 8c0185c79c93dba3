import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller';

/** The OpenAPI document, served as JSON. */
@Module({
  controllers: [DocsController],
})
export class DocsModule {}
