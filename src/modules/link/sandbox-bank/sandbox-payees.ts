import type { Institution, PaymentChannel, ProviderCounterparty, ProviderLocation } from '../bank-link.port.js';
import type { HomeCity } from './sandbox-institutions.js';
import type { MerchantProfile } from './sandbox-merchants.js';
import { base62, hashSeed, randomInt, type Random } from '../../../core/seeded-random.js';

/**
 * Everything a transaction takes from who it was with. Built once per item and shared by every
 * transaction with that payee, which keeps a 100k-transaction history cheap.
 */
export interface Payee {
  readonly merchantName: string | null;
  readonly category: string | null;
  readonly channel: PaymentChannel;
  readonly counterparties: readonly ProviderCounterparty[];
  readonly location: ProviderLocation;
  readonly logoUrl: string | null;
  readonly website: string | null;
  /** Concrete raw descriptors; a transaction takes one of them as its `name`. */
  readonly names: readonly string[];
}

export type Place = HomeCity & { readonly country?: string };

export const NO_LOCATION: ProviderLocation = Object.freeze({
  address: null, city: null, country: null, postal_code: null, region: null, store_number: null, lat: null, lon: null,
});

const LOGO_HOST = 'https://logos.ledgerline.example';

/** Entity ids are global (the same merchant has the same id in every item), like a provider's. */
export function entityId(key: string): string {
  return base62(hashSeed('entity', key), 6) + base62(hashSeed(key, 'entity'), 6) + base62(hashSeed(key.length, key), 6);
}

function fillDescriptor(template: string, place: Place, random: Random): string {
  return template
    .replace(/\{CITY\}/g, place.city.toUpperCase())
    .replace(/\{ST\}/g, place.region.toUpperCase())
    .replace(/#/g, () => String(randomInt(random, 0, 9)));
}

export function descriptorVariants(templates: readonly string[], place: Place, random: Random): string[] {
  const names = new Set<string>();
  for (const template of templates) {
    const copies = template.includes('#') ? 2 : 1;
    for (let i = 0; i < copies; i += 1) names.add(fillDescriptor(template, place, random));
  }
  return [...names];
}

function storeLocation(place: Place, random: Random): ProviderLocation {
  const street = place.streets[randomInt(random, 0, place.streets.length - 1)] as string;
  const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;
  return Object.freeze({
    address: `${randomInt(random, 100, 4999)} ${street}`,
    city: place.city,
    country: place.country ?? 'US',
    postal_code: `${place.postalPrefix}${String(randomInt(random, 1, 99)).padStart(2, '0')}`,
    region: place.region,
    store_number: String(randomInt(random, 100, 9999)),
    lat: round6(place.lat + (random() - 0.5) * 0.08),
    lon: round6(place.lon + (random() - 0.5) * 0.08),
  });
}

const PROCESSORS: Record<'Square' | 'Toast', ProviderCounterparty> = {
  Square: Object.freeze({ name: 'Square', type: 'payment_terminal', logo_url: `${LOGO_HOST}/merchants/square.png`, website: 'squareup.com', entity_id: entityId('square'), confidence_level: 'HIGH' }),
  Toast: Object.freeze({ name: 'Toast', type: 'payment_terminal', logo_url: `${LOGO_HOST}/merchants/toast.png`, website: 'toasttab.com', entity_id: entityId('toast'), confidence_level: 'HIGH' }),
};

export function merchantPayee(profile: MerchantProfile, place: Place, random: Random): Payee {
  const logoUrl = profile.website === null ? null : `${LOGO_HOST}/merchants/${profile.key}.png`;
  const counterparty: ProviderCounterparty = Object.freeze({
    name: profile.merchantName,
    type: profile.counterpartyType,
    logo_url: logoUrl,
    website: profile.website,
    entity_id: entityId(profile.key),
    confidence_level: profile.website === null ? 'MEDIUM' : 'VERY_HIGH',
  });
  return Object.freeze({
    merchantName: profile.merchantName,
    category: profile.category,
    channel: profile.channel,
    counterparties: Object.freeze(profile.processor === null ? [counterparty] : [counterparty, PROCESSORS[profile.processor]]),
    location: profile.channel === 'in store' ? storeLocation(place, random) : NO_LOCATION,
    logoUrl,
    website: profile.website,
    names: Object.freeze(descriptorVariants(profile.descriptors, place, random)),
  });
}

export function incomePayee(
  source: { readonly name: string; readonly website: string | null },
  names: readonly string[],
  category: string,
  showMerchantName: boolean,
): Payee {
  return Object.freeze({
    merchantName: showMerchantName ? source.name : null,
    category,
    channel: 'other',
    counterparties: Object.freeze([
      Object.freeze({ name: source.name, type: 'income_source', logo_url: null, website: source.website, entity_id: entityId(source.name), confidence_level: 'HIGH' } satisfies ProviderCounterparty),
    ]),
    location: NO_LOCATION,
    logoUrl: null,
    website: source.website,
    names: Object.freeze([...names]),
  });
}

/** Own-account movements, fees and interest: the counterparty is the bank itself. */
export function bankPayee(institution: Institution, names: readonly string[], category: string, channel: PaymentChannel = 'other'): Payee {
  const website = institution.url === null ? null : institution.url.replace(/^https?:\/\/(www\.)?/, '');
  return Object.freeze({
    merchantName: null,
    category,
    channel,
    counterparties: Object.freeze([
      Object.freeze({ name: institution.name, type: 'financial_institution', logo_url: institution.logo, website, entity_id: entityId(institution.id), confidence_level: 'VERY_HIGH' } satisfies ProviderCounterparty),
    ]),
    location: NO_LOCATION,
    logoUrl: institution.logo,
    website,
    names: Object.freeze([...names]),
  });
}
