import { Param, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../../../core/errors.js';

/** A provider's item id is opaque but printable: anything else (empty, too long, control characters) names no item. */
const LINK_ITEM_ID = /^[\x21-\x7e]{1,200}$/;

export function LinkItemIdParam() {
  const pipe: PipeTransform<string, string> = {
    transform(value) {
      if (typeof value !== 'string' || !LINK_ITEM_ID.test(value)) throw new NotFoundError('Link item');
      return value;
    },
  };
  return Param('linkItemId', pipe);
}
