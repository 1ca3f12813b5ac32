import { Param, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../../../core/errors.js';

/** A provider's authorization id is opaque but printable: anything else (empty, too long, control characters) names none. */
const BROKERAGE_AUTHORIZATION_ID = /^[\x21-\x7e]{1,200}$/;

export const BROKERAGE_AUTHORIZATION_ID_PARAM = {
  name: 'brokerageAuthorizationId',
  description: 'The provider’s authorization id (brokerageAuthorizationId in GET /brokerage/accounts).',
  schema: { type: 'string', maxLength: 200 },
} as const;

export function BrokerageAuthorizationIdParam() {
  const pipe: PipeTransform<string, string> = {
    transform(value) {
      if (typeof value !== 'string' || !BROKERAGE_AUTHORIZATION_ID.test(value)) throw new NotFoundError('Brokerage authorization');
      return value;
    },
  };
  return Param('brokerageAuthorizationId', pipe);
}
