/**
 * Every job queue name, in one place. pg-boss needs a queue created before it is used, and creating
 * one takes locks that an open transaction may hold, so all of them are declared at start, never
 * on first use inside a request.
 */
export const QUEUES = {
  ingestImages: 'ingest.images',
  ingestVideo: 'ingest.video',
  ingestPage: 'ingest.page',
  ingestModel: 'ingest.model',
  generateModel: 'generate.model',
  renderImages: 'render.images',
  purgeProductFiles: 'products.purge-files',
  exportFinish: 'export.finish',
  webhooksDispatch: 'webhooks.dispatch',
  webhooksDeliver: 'webhooks.deliver',
} as const;

export const ALL_QUEUES: string[] = Object.values(QUEUES);
