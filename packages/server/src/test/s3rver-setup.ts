import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver has no type declarations.
// @ts-expect-error untyped module
import S3rver from 's3rver';
import type { TestProject } from 'vitest/node';

/** One local S3 server for the postgres project; each test file uses its own bucket. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, allowMismatchedSignatures: true });
  const { port } = await server.run();
  project.provide('s3Endpoint' as never, `http://127.0.0.1:${port}` as never);
  return async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
