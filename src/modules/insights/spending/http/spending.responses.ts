import { ApiProperty } from '@nestjs/swagger';
import { AVERAGE_LABELS } from '../spending-series.js';

export class SpendingBucketResponse {
  @ApiProperty({ minimum: 0, example: 42.5, description: 'Net money out in the bucket; 0 when nothing was spent or refunds outweigh spending.' }) amount!: number;
  @ApiProperty({ format: 'date', example: '2026-11-16', description: "The bucket's first day within the window: the day; the Monday of an ISO week; the 1st of a month. The first bucket starts with the window, so it may be part of a week or month." })
  date!: string;
}

export class SpendingResponse {
  @ApiProperty({ enum: AVERAGE_LABELS, description: 'The bucket size: `daily` (1w, 1m), `weekly` (3m, 6m), `monthly` (1y, ytd, all). `yearly` is not produced by any current period.' })
  averageLabel!: string;
  @ApiProperty({ minimum: 0, description: 'totalSpending / number of buckets, rounded half-even to 4 decimals.' }) averageSpending!: number;
  @ApiProperty({ minimum: 0, description: 'The sum of the buckets.' }) totalSpending!: number;
  @ApiProperty({ type: [SpendingBucketResponse], description: 'Every bucket of the window, oldest first, 0 where nothing was spent.' }) spending!: SpendingBucketResponse[];
}
