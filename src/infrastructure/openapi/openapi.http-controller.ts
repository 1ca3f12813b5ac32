import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../http/api-key.guard.js';
import { OPENAPI_DOCUMENT } from './openapi.tokens.js';

@ApiExcludeController()
@Controller()
export class OpenApiHttpController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: { current: unknown }) {}

  @Get('openapi.json')
  @Public()
  @Header('Cache-Control', 'no-cache')
  openApi(): unknown {
    return this.document.current;
  }
}
