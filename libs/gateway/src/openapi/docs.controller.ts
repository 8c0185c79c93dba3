import { Controller, Get, Inject } from '@nestjs/common';
import type { Infrastructure } from '@jumbe/platform';
import { INFRASTRUCTURE } from '../gateway.tokens';
import { buildOpenApiDocument } from './openapi-document';

@Controller('api/v1')
export class DocsController {
  private readonly document: Record<string, unknown>;

  constructor(@Inject(INFRASTRUCTURE) infrastructure: Infrastructure) {
    this.document = buildOpenApiDocument(infrastructure.version, infrastructure.config.network);
  }

  @Get('openapi.json')
  openApi() {
    return this.document;
  }
}
