import type { Config } from '../../config.js';
import type { GuardedFetcher } from '../../platform/fetch/types.js';
import { createBuiltinGenerator, createExternalGenerator, type Generator } from '@plinth/media';

/** The generator the config asks for. The external one talks through the guarded fetcher like every outbound call. */
export function createGenerator(config: Readonly<Config>, fetcher: GuardedFetcher): Generator {
  if (config.generator.kind === 'builtin') return createBuiltinGenerator();
  return createExternalGenerator({
    baseUrl: config.generator.url!,
    apiKey: config.generator.apiKey ?? '',
    fetch: async (url, init) => {
      const res = await fetcher.fetch(url, {
        method: init.method as 'GET' | 'POST',
        headers: init.headers,
        body: init.body,
        failOnHttpError: false,
        maxBytes: 200 * 1024 * 1024,
        timeoutMs: 120_000,
      });
      return {
        status: res.status,
        json: async () => JSON.parse(res.body.toString('utf8')) as unknown,
        arrayBuffer: async () => res.body.buffer.slice(res.body.byteOffset, res.body.byteOffset + res.body.byteLength) as ArrayBuffer,
      };
    },
  });
}
