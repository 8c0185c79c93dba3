import { Controller, Get } from '@nestjs/common';
import { productVersion } from '@jumbe/platform';
import { buildOpenApiDocument } from './openapi-document';

@Controller('api/v1')
export class DocsController {
  private readonly document: Record<string, unknown>;

  constructor() {
    this.document = buildOpenApiDocument(productVersion());
  }

  @Get('openapi.json')
  openApi() {
    return this.document;
  }
}
