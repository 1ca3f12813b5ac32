import { ApiProperty } from '@nestjs/swagger';

/** One line of GET /export: an event as it is stored, with its place in the feed and in its stream's hash chain. */
export class ExportLineResponse {
  @ApiProperty({ example: '7291/1042', description: 'Its place in the feed (all streams, in order): `commit/prepare`, as the operator commands print positions. Lines come in this order.' })
  position!: string;

  @ApiProperty({ example: 'transaction-99c9b7e1-92f9-482d-8f27-8bb1b6ca8b61', description: 'The stream it belongs to: `<kind>-<id>`.' })
  stream!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Its place in its stream, from 0.' })
  revision!: number;

  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'TransactionEdited', description: 'The event type (the README’s event catalogue).' })
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The event’s data as stored (money as decimal strings), at the schema version its metadata names.' })
  data!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Who and why: `userId`, `actor` (`user` | `system`), `requestId`, `correlationId`, `causationId`, `occurredAt`, `schemaVersion`, and `idempotencyKey`, `ruleId` when they apply.',
  })
  metadata!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', description: 'When the change was made (the metadata’s occurredAt).' })
  occurredAt!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{64}$',
    description: 'Hex SHA-256 hash of the event before it in its stream (64 zeros for the first); null for an event not chained yet.',
  })
  previousHash!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{64}$',
    description: 'Hex SHA-256 over previousHash’s 32 bytes followed by the UTF-8 of the RFC 8785 JSON of `{id, streamId: stream, revision, type, data, metadata}`: recompute it to check the file.',
  })
  hash!: string | null;
}
