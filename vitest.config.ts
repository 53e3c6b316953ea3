import { defineConfig } from 'vitest/config';

const postgresUrl = process.env.PLINTH_TEST_POSTGRES_URL;
const redisUrl = process.env.PLINTH_TEST_REDIS_URL;
const include = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'];

if (!postgresUrl) {
  console.log('\n[plinth] PostgreSQL suite skipped: PLINTH_TEST_POSTGRES_URL is not set (bash .ci/run sets it).\n');
}
if (!redisUrl) {
  console.log('[plinth] Redis tests skipped: PLINTH_TEST_REDIS_URL is not set (bash .ci/run sets it).\n');
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', include, env: { PLINTH_TEST_DB: 'sqlite' } } },
      ...(postgresUrl
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include,
                env: { PLINTH_TEST_DB: 'postgres' },
                globalSetup: ['packages/server/src/test/s3rver-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
