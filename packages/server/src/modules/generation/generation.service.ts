import { createExternalGenerator, type Generator } from '@plinth/media';
import type { Config } from '../../config.js';
import type { GuardedFetcher } from '../../platform/fetch/types.js';
import type { MediaRunner } from '../../platform/sandbox/media-sandbox.js';

/**
 * The generator the config asks for. The built-in one carves in the media sandbox; the external one only
 * talks to its service, through the guarded fetcher like every outbound call, and its result then goes
 * through the sandboxed model pipeline like any import.
 */
export function createGenerator(config: Readonly<Config>, fetcher: GuardedFetcher, media: MediaRunner): Generator {
  if (config.generator.kind === 'builtin') {
    return {
      name: 'builtin',
      generate: (views, hints, onProgress) => media.run('generate.builtin', { views, hints }, { progress: onProgress }),
    };
  }
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
