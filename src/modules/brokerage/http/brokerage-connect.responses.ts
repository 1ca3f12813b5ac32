import { ApiProperty } from '@nestjs/swagger';

export class BrokerageConnectResponse {
  @ApiProperty({
    format: 'uri',
    description:
      'The provider’s connection portal, to open in the user’s browser; it returns the browser to the configured return URL with ' +
      '`brokerageAuthorizationId` and `status=connected`. In the sandbox the portal is `/v1/sandbox/brokerage/portal?session=<token>` on this service ' +
      '(single use, valid 5 minutes).',
  })
  redirectUrl!: string;
}

export class SandboxBrokerageDisabledResponse {
  @ApiProperty({ description: 'The authorization is disabled at the provider, and its accounts show needsReauth: true.' })
  success!: boolean;
}
