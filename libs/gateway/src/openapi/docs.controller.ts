import type { JumbeConfig } from '@jumbe/config';
import { Controller, Get, Inject } from '@nestjs/common';
import { productVersion } from '@jumbe/platform';
import { CONFIG } from '../gateway.tokens';
import { buildOpenApiDocument } from './openapi-document';

@Controller('api/v1')
export class DocsController {
  private readonly document: Record<string, unknown>;

  constructor(@Inject(CONFIG) config: JumbeConfig) {
    this.document = buildOpenApiDocument(productVersion(), config.network);
  }

  @Get('openapi.json')
  openApi() {
    return this.document;
  }
}
