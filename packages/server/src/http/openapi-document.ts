/**
 * What the route schemas cannot say on their own, added to the served OpenAPI document once: an operationId
 * per operation, the headers every answer carries, the Idempotency-Key parameter of POSTs, examples that can be
 * sent as they are, and the rules the server enforces beyond the shape of a field.
 */

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const singular = (word: string) => word.replace(/ies$/, 'y').replace(/s$/, '');
const camel = (words: string[]) => words.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');
/** Path ends that are verbs: `/v1/products/{id}/order` is `orderProduct`, not a sub-collection. */
const ACTIONS = new Set(['order', 'review', 'publish', 'rescale', 'retry', 'rotate_secret', 'test', 'login', 'logout', 'export']);

/**
 * A stable, readable id from the method and path: list/create on a collection, retrieve/update/delete on an item,
 * the action's own name for a verb path. Derived, so a new route never ships without one.
 */
export function operationIdFor(method: string, path: string): string {
  const segments = path.replace(/^\/(v1\/)?/, '').split('/').filter(Boolean);
  const last = segments.at(-1) ?? 'root';
  const nouns = segments.filter((s) => !s.startsWith('{') && !ACTIONS.has(s)).flatMap((s) => s.split('_'));
  const names = (plural: boolean) => nouns.map((n, i) => (plural && i === nouns.length - 1 ? n : singular(n)));
  if (ACTIONS.has(last)) return camel([...last.split('_'), ...names(last === 'publish' || last === 'export')]);
  if (last.startsWith('{')) return camel([{ get: 'retrieve', patch: 'update', put: 'replace', delete: 'delete' }[method] ?? method, ...names(false)]);
  if (method === 'get') return camel(['list', ...names(true)]);
  if (method === 'post') return camel(['create', ...names(false)]);
  return camel([method, ...names(true)]);
}

const HEADERS: Json = {
  'X-Request-Id': { description: 'The id this request was logged under; quote it to support. Also in every error body as `request_id`.', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests the key may make in a burst.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current burst.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  'Idempotent-Replayed': { description: '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any unique string (a UUID) per intended effect. A retry with the same key and body answers the first result (with `Idempotent-Replayed: true`) instead of acting twice; the same key with another body is 409 `idempotency_conflict`. Kept 24 hours.',
  schema: { type: 'string', maxLength: 255 },
};

/** Rules the server checks that a schema cannot express, said where a developer reads them. */
const RULES: Record<string, string> = {
  'post /v1/products':
    'Exactly one source per request: `image_urls`, `video_url`, `source_url`, `image_paths`, `model_url` or `model_path` (or a `resume_token` to commit a quote); two sources, or none, is 422.',
  'patch /v1/products/{id}/model':
    '`delivery_budgets` needs a ready model (else 409 `model_not_ready`) and cannot come with `model_url` (422); the deliveries are made again from the master in a job, and a rescale re-optimises too. ' +
    '`settings` merge into the saved ones (null removes a field, a list replaces the saved list). `settings.default_variant` must name one of `model.variants`; hotspot ids must be unique; an unknown variant or a repeated id is 422 naming the path. A rescale moves `settings.hotspots` with the model.',
  'post /v1/products/{id}/model/rescale': 'Send exactly one of `dimensions` (metres, one or more axes) or `scale` (a factor); both or neither is 422.',
  'get /v1/usage': 'The window from `start` to `end` is at most 366 days (31 days with `granularity=hour`); a longer one is 422.',
  'post /v1/webhooks': 'The `url` must be https (http only for hosts allowed by PLINTH_FETCH_ALLOW_HOSTS, for local development); private and loopback addresses are refused.',
  'post /v1/api_keys':
    'Scopes come from a fixed list: `products:read`, `products:write`, `usage:read` (usage and experiments), `webhooks:manage` (alias `webhooks:manageWebhook`), `beacon:write`. An empty list means full access; publishable keys are capped at `products:read` and `beacon:write`.',
};

/** Request examples that the server accepts as they are (a test sends each one). */
const EXAMPLES: Record<string, Json> = {
  'post /v1/products': {
    images: { summary: 'Photos (answers a quote)', value: { image_urls: ['https://shop.example/photos/chair-front.jpg', 'https://shop.example/photos/chair-side.jpg'], title: 'Oak chair', generate_model: true } },
    page: { summary: 'A product page (answers a quote)', value: { source_url: 'https://shop.example/products/oak-chair' } },
    model: { summary: 'An existing 3D model (imports at once, 202)', value: { model_url: 'https://shop.example/models/oak-chair.glb', title: 'Oak chair' } },
  },
};

/** The reference's first section: from a fresh start to a product in 3D on a page, with this server's address. */
const gettingStarted = (base: string) => `Products with finished images and 3D models that shoppers can view and place in AR.

## Getting started

1. **Start Plinth.** \`npm start\` (or \`plinth serve\`). On an empty data directory it creates a demo organization and
   prints its keys once: a secret key (\`sk_…\`, for your server) and a publishable key (\`pk_…\`, for web pages).
2. **Make your first call.** Send the secret key as a bearer token:

   \`\`\`sh
   curl -H "Authorization: Bearer sk_…" ${base}/v1/projects
   \`\`\`
3. **Create a product.** Send one source: photos, a video, a product page, uploads, or an existing model. Photos and
   pages answer a **quote** first (the credits it costs); send its \`resume_token\` back to commit:

   \`\`\`sh
   curl -X POST ${base}/v1/products -H "Authorization: Bearer sk_…" -H "Content-Type: application/json" \\
     -d '{"image_urls": ["https://shop.example/chair.jpg"], "generate_model": true}'
   curl -X POST ${base}/v1/products -H "Authorization: Bearer sk_…" -H "Content-Type: application/json" \\
     -d '{"resume_token": "…"}'
   \`\`\`
   A model file imports at once: \`{"model_url": "https://shop.example/chair.glb"}\` answers 202 with the product.
4. **Wait for the work.** Poll \`GET /v1/products/{id}\` (\`model_status\`, \`progress\`, \`step\`), or subscribe a webhook
   to \`product.model.ready\`. The TypeScript SDK does it in one call: \`plinth.products.waitFor(id, { until: 'model_ready' })\`.
5. **Publish and embed.** \`POST /v1/products/publish\` with its id, add your shop's origin to the project's
   \`allowed_domains\`, then load \`${base}/embed.js\` on the page as a module script and add the element
   \`service-model\` with the attributes \`product-id="prod_…"\` and \`publishable-key="pk_…"\`. Shoppers see the
   model in 3D, and in AR on their phones.

Every answer carries \`X-Request-Id\`; every error is \`{"error": {"code", "message", "details", "request_id"}}\`. POSTs take an
\`Idempotency-Key\` header, so a retry never acts twice.`;

/** What each tag groups, for the reference's sidebar. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Products: 'Create products from photos, a video, a page or a 3D model; read, update, review, publish and export them.',
  Uploads: 'Files from your disk (images, GLB models) for products to use.',
  Analytics: 'Views and AR sessions from the embed, and usage over time.',
  Webhooks: 'Endpoints that receive signed events, and their delivery log.',
  Keys: 'Secret and publishable API keys.',
  Projects: 'Projects and the origins their publishable keys work from.',
  Health: 'Whether the service and its dependencies are up.',
  Embed: 'What the <service-model> element reads.',
  Assets: 'Finishing settings of images and viewer settings of the model.',
  Review: 'Accept or reject images and the model, and publish, in one batch.',
  Export: 'Finished images as a ZIP, streamed or queued.',
  Sessions: 'Dashboard sign-in.',
  Dashboard: 'What the web dashboard reads with a session.',
  Capture: 'The printable capture mat that gives generated models their cameras and real size.',
};

export function finishDocument(doc: Json): Json {
  doc.info = { ...doc.info, description: gettingStarted(String(doc.servers?.[0]?.url ?? '')), license: { name: 'Apache-2.0', identifier: 'Apache-2.0' }, contact: { name: 'Plinth API reference', url: `${doc.servers?.[0]?.url ?? ''}/docs` } };
  doc.components ??= {};
  doc.components.headers = { ...doc.components.headers, ...HEADERS };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const seen = new Set<string>();
  const tags = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const key = `${method} ${path}`;
      op.operationId ??= operationIdFor(method, path);
      while (seen.has(op.operationId)) op.operationId += 'Alt';
      seen.add(op.operationId);
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (method === 'post' && path.startsWith('/v1/') && !(op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key')) {
        op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY];
      }
      // Any keyed call can be rate limited: say so, with the error body the other refusals use.
      const envelope = Object.entries<Json>(op.responses ?? {}).find(([st, r]) => st.startsWith('4') && r.content)?.[1];
      if (!isPublic && envelope && !op.responses['429']) {
        op.responses['429'] = { description: 'Too many requests (`rate_limited`: wait for Retry-After), or not enough credits (`quota_exceeded`).', content: envelope.content };
      }
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        if (response.$ref) continue;
        const headers: Json = { 'X-Request-Id': ref('X-Request-Id') };
        if (!isPublic) for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) headers[h] = ref(h);
        if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
        if (method === 'post' && status.startsWith('2')) headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
        response.headers = { ...headers, ...response.headers };
      }
      if (RULES[key] && !String(op.description ?? '').includes(RULES[key]!)) op.description = [op.description, RULES[key]].filter(Boolean).join('\n\n');
      // Every operation is explained, at least by its summary.
      op.description ??= op.summary ? `${op.summary}.` : undefined;
      for (const tag of op.tags ?? []) tags.add(tag);
      const media = op.requestBody?.content?.['application/json'];
      if (EXAMPLES[key] && media) media.examples = EXAMPLES[key];
    }
  }
  doc.tags = [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
  return doc;
}
