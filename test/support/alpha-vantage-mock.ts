import { randomBytes } from 'node:crypto';
import { type ApiAnswer, type ApiRequest, fixture, startRecordedApiServer } from './recorded-api-server.js';

/**
 * Alpha Vantage's `/query` on 127.0.0.1, answering GLOBAL_QUOTE and SYMBOL_SEARCH with the
 * exchanges recorded under test/fixtures/alphavantage for IBM and TSCO.LON (any other symbol: the
 * empty quote of an unknown one), and its refusals as Alpha Vantage gives them: 200 with a sentence.
 */
export interface AlphaVantageMock {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: ApiRequest[];
  /** The next request (of `fn`, if given) is answered with this recorded body (a rate limit, a bad key…), or this status. */
  failNext(answer: string | number, fn?: string): void;
  /** Requests are held this long before being answered (0: at once). */
  delayMs: number;
  close(): Promise<void>;
}

const KNOWN: Readonly<Record<string, string>> = { IBM: 'ibm', 'TSCO.LON': 'tsco-lon' };

export async function startAlphaVantageMock(): Promise<AlphaVantageMock> {
  const apiKey = randomBytes(8).toString('hex').toUpperCase();
  const failures: { answer: string | number; fn: string | undefined }[] = [];
  const answer = (request: ApiRequest): ApiAnswer => {
    const at = failures.findIndex((entry) => entry.fn === undefined || entry.fn === request.query.get('function'));
    const failure = at === -1 ? undefined : failures.splice(at, 1)[0]!.answer;
    if (typeof failure === 'number') return { status: failure, body: { error: 'upstream' } };
    if (failure !== undefined) return { status: 200, body: fixture(`alphavantage/${failure}.json`) };
    if (request.path !== '/query' || request.query.get('apikey') !== apiKey) return { status: 200, body: fixture('alphavantage/invalid-api-key.json') };
    const known = KNOWN[request.query.get('symbol') ?? request.query.get('keywords') ?? ''];
    switch (request.query.get('function')) {
      case 'GLOBAL_QUOTE':
        return { status: 200, body: fixture(`alphavantage/global-quote-${known ?? 'unknown'}.json`) };
      case 'SYMBOL_SEARCH':
        return { status: 200, body: fixture(`alphavantage/symbol-search-${known ?? 'empty'}.json`) };
      default:
        return { status: 200, body: { 'Error Message': `Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for ${request.query.get('function')}.` } };
    }
  };
  const mock: AlphaVantageMock = {
    url: '',
    apiKey,
    requests: [],
    failNext: (failure, fn) => void failures.push({ answer: failure, fn }),
    delayMs: 0,
    close: async () => undefined,
  };
  const server = await startRecordedApiServer(async (request) => {
    if (mock.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, mock.delayMs));
    return answer(request);
  });
  return Object.assign(mock, { url: server.url, requests: server.requests, close: () => server.close() });
}
