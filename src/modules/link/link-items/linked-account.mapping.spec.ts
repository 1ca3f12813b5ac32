import type { LinkAccount } from '../bank-link.port.js';
import { serviceSubtype, toLinkedAccount } from './linked-account.mapping.js';

const card: LinkAccount = {
  linkAccountId: 'acc-card',
  name: 'Rewards Card',
  officialName: 'Harbor Point Rewards Visa',
  mask: '4242',
  type: 'credit',
  subtype: 'credit card',
  currency: 'USD',
  balances: { current: '-812.4', available: '4187.6', limit: '5000' },
};

describe('linked account mapping', () => {
  it('maps provider types into the service vocabulary, keeping signed balances and the limit', () => {
    expect(toLinkedAccount('u1', 'item-1', card)).toMatchObject({
      type: 'credit_card',
      subtype: 'credit card',
      providerType: 'credit',
      balances: { current: '-812.4', available: '4187.6', limit: '5000' },
    });
  });

  it('gives an account the same id for the same user, item and provider account, and another for another user', () => {
    const first = toLinkedAccount('u1', 'item-1', card).accountId;
    expect(toLinkedAccount('u1', 'item-1', card).accountId).toBe(first);
    expect(toLinkedAccount('u2', 'item-1', card).accountId).not.toBe(first);
  });

  it('keeps subtypes the vocabulary has, translates synonyms, and falls back to other or null', () => {
    expect(serviceSubtype('bank', 'checking')).toBe('checking');
    expect(serviceSubtype('loan', 'auto')).toBe('auto');
    expect(serviceSubtype('loan', 'auto loan')).toBe('auto');
    expect(serviceSubtype('investment', '401(k)')).toBe('401k');
    expect(serviceSubtype('loan', 'boat')).toBe('other');
    expect(serviceSubtype('bank', 'crypto wallet')).toBeNull();
    expect(serviceSubtype('credit_card', null)).toBeNull();
  });
});
