import { createSandboxMarket, formatIsoDate, parseIsoDate } from '../../quotes/sandbox-market/index.js';
import { portfolioValues } from './portfolio-valuation.js';
import { planPortfolio, STRATEGIES } from './portfolio.generator.js';

const market = createSandboxMarket();
const openedOn = '2026-03-10';

describe('the sandbox portfolio plan', () => {
  it('keeps what every past day showed as asOf moves on: later days only add activities and values', () => {
    for (const kind of ['individual', 'roth_ira'] as const) {
      const plan = (asOf: string) => planPortfolio({ seed: 41, openedOn, asOf, market, strategy: STRATEGIES[kind] });
      const earlier = plan(openedOn);
      for (const days of [1, 9, 31, 200, 400]) {
        const asOf = formatIsoDate(parseIsoDate(openedOn) + days);
        const later = plan(asOf);
        expect(later.filter((activity) => activity.day <= parseIsoDate(openedOn))).toEqual(earlier);
        expect(later.length).toBeGreaterThanOrEqual(earlier.length);
        expect(portfolioValues(later, market, parseIsoDate(openedOn))).toEqual(portfolioValues(earlier, market, parseIsoDate(openedOn)));
      }
    }
  });

  it('ends its activities at asOf and starts them about two years before the day the account was opened', () => {
    const planned = planPortfolio({ seed: 41, openedOn, asOf: '2026-11-20', market, strategy: STRATEGIES.individual });
    expect(planned[0]!.day).toBeGreaterThanOrEqual(parseIsoDate(openedOn) - 730);
    expect(planned[0]!.day).toBeLessThan(parseIsoDate(openedOn) - 700);
    expect(planned[planned.length - 1]!.day).toBeLessThanOrEqual(parseIsoDate('2026-11-20'));
    expect(planned.some((activity) => activity.day > parseIsoDate(openedOn))).toBe(true);
  });
});
