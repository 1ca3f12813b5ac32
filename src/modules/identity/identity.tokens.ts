/** Nest injection tokens of the identity module. */
export const SIGN_IN_SERVICE = Symbol('SignInService');
export const SAME_ORIGIN_POLICY = Symbol('SameOriginPolicy');
export const SESSION_COOKIE_POLICY = Symbol('SessionCookiePolicy');
export const RATE_LIMITER = Symbol('RateLimiter');
export const SIGN_IN_RATE_LIMITER = Symbol('SignInRateLimiter');
export const AUTHENTICATOR = Symbol('IdentityAuthenticator');
