// Test fixture for jobs.test.ts, not part of the server: a worker process that the test kills with SIGKILL.
// Nothing is compiled during tests and Node 20 cannot run TypeScript, so the real adapter sources are
// loaded through Vite's module runner (vite is installed with vitest).
//
// env: the PLINTH_* / DATABASE_URL settings for loadConfig, JOB_NAME (queue to work), MARKER (file written
// when the handler starts; the handler then never finishes).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const load = async (relative) => (await runnerImport(fileURLToPath(new URL(relative, import.meta.url)))).module;

const [{ createJobQueue }, { loadConfig }, { openDatabase }, { createLogger }] = await Promise.all([
  load('./index.ts'),
  load('../../config.ts'),
  load('../db/index.ts'),
  load('../../logger.ts'),
]);

const config = loadConfig(process.env);
const database = openDatabase(config.databaseUrl);
const queue = createJobQueue(config, database, createLogger(config.logLevel));
await queue.open();
queue.register(process.env.JOB_NAME, async (job) => {
  writeFileSync(process.env.MARKER, JSON.stringify(job));
  await new Promise(() => {});
});
await queue.start();
process.stdout.write('ready\n');
