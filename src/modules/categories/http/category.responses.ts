import { ApiProperty } from '@nestjs/swagger';

export class CategoryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'shopping-cart' }) iconKey!: string;
  @ApiProperty({ format: 'uuid' }) groupId!: string;
  @ApiProperty({ description: 'Hidden from pickers; still shown on the transactions that carry it, and still assignable.' }) hidden!: boolean;
  @ApiProperty({ description: 'Left out of spending insights.' }) excludeFromInsights!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Place within its group.' }) order!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Stable key of a system category (e.g. FOOD_AND_DRINK_GROCERIES); null for your own.' }) systemKey!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CategoryGroupResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) order!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Stable key of a system group (e.g. FOOD_AND_DRINK), what `categoryGroup` filters by; null for your own.' }) systemKey!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CategoryListResponse {
  @ApiProperty({ type: [CategoryResponse], description: 'Sorted by order, then name, then id.' }) categories!: CategoryResponse[];
  @ApiProperty({ type: [CategoryGroupResponse], description: 'Sorted by order, then name, then id.' }) groups!: CategoryGroupResponse[];
}
