/** Points every tier at the machine's PostgreSQL and Redis unless the caller chose others. */
export default function globalSetup(): void {
  process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.TEST_REDIS_URL ??= 'redis://127.0.0.1:6379';
  process.env.LOG_LEVEL ??= 'silent';
}
