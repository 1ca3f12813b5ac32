import type { Strategy } from 'passport';

export type StrategyOutcome =
  | { readonly kind: 'redirect'; readonly url: string }
  | { readonly kind: 'success'; readonly user: unknown }
  | { readonly kind: 'fail'; readonly challenge: unknown }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'timeout' };

interface StrategyActions {
  redirect(url: string): void;
  success(user: unknown): void;
  fail(challenge?: unknown): void;
  error(error: unknown): void;
  pass(): void;
  authenticate(request: unknown, options?: object): void;
}

/**
 * Runs one passport strategy over a request and reports how it ended, the way
 * `passport.authenticate` does inside (a fresh object over the strategy, given the
 * redirect/success/fail/error actions). Driving it directly lets sign-in answer JSON
 * `{url}` instead of a 302, and needs no session middleware.
 */
export function runStrategy(strategy: Strategy, request: object, options: object, timeoutMs: number): Promise<StrategyOutcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
    const settle = (outcome: StrategyOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const attempt = Object.create(strategy) as StrategyActions;
    attempt.redirect = (url) => settle({ kind: 'redirect', url });
    attempt.success = (user) => settle({ kind: 'success', user });
    attempt.fail = (challenge) => settle({ kind: 'fail', challenge });
    attempt.error = (error) => settle({ kind: 'error', error });
    attempt.pass = () => settle({ kind: 'error', error: new Error('The strategy passed the request on without deciding.') });
    try {
      attempt.authenticate(request, options);
    } catch (error) {
      settle({ kind: 'error', error });
    }
  });
}
