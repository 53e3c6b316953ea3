import { configDefaults, defineConfig } from 'vitest/config';

const postgresUrl = process.env.PLINTH_TEST_POSTGRES_URL;
const redisUrl = process.env.PLINTH_TEST_REDIS_URL;
const include = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'];

/**
 * Files that never touch the database, Redis or object storage (image, model and video pipelines,
 * the generator, the guarded fetcher's address rules, browser-only and packaging checks). Running
 * them again on the PostgreSQL backend would test nothing new, so that project leaves them out.
 */
const backendIndependent = [
  'packages/server/src/modules/export/finish.test.ts',
  'packages/server/src/modules/generation/{builtin-generator,external-generator,marching-cubes,renders}.test.ts',
  'packages/server/src/modules/ingest/{frame-select,image-formats,image-pipeline,model-pipeline,model-usdz,model-validate,page-extract,video-frames}.test.ts',
  'packages/server/src/platform/fetch/*.test.ts',
  'packages/sdk/test/{pack,browser,webhook-verify,types}.test.ts',
  'packages/embed/test/**/*.test.ts',
];

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
                exclude: [...configDefaults.exclude, ...backendIndependent],
                // The AWS SDK warns once per process that it will need Node 22 from 2027; it is noise in test logs.
                env: { PLINTH_TEST_DB: 'postgres', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
                globalSetup: ['packages/server/src/test/s3rver-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
