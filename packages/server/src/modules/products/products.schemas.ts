import { Type } from '@sinclair/typebox';
import { MODEL_STATUSES, PRODUCT_STATUSES, REVIEW_STATUSES } from '../../core/records.js';
import { Timestamp } from '../../http/schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Str = Type.String();
const Problem = Nullable(Type.Object({ code: Str, message: Str }));

export const ProductStatusSchema = Type.Union(PRODUCT_STATUSES.map((s) => Type.Literal(s)));
export const ModelStatusSchema = Type.Union(
  MODEL_STATUSES.map((s) => Type.Literal(s)),
  { description: MODEL_STATUSES.join(' | ') },
);
export const ReviewStatusSchema = Type.Union(REVIEW_STATUSES.map((s) => Type.Literal(s)));

export const CutoutSchema = Type.Object(
  {
    status: Type.Union(['ok', 'uncertain', 'none'].map((s) => Type.Literal(s)), {
      description: 'none: no product was found apart from its surroundings (never used for generation; exports skip it unless accepted)',
    }),
    method: Type.Union(['alpha', 'rendered', 'isnet', 'classical'].map((s) => Type.Literal(s))),
    coverage: Type.Number({ minimum: 0, maximum: 1, description: 'share of the frame that is product' }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { title: 'Cutout', description: 'How the cut-out of this image went; null until the image is analysed, or when it failed.' },
);

const ComplianceCode = Type.Union(['size', 'fill', 'background', 'format', 'bytes', 'not_cropped', 'cutout'].map((s) => Type.Literal(s)));

export const ComplianceSchema = Type.Object(
  {
    preset: Type.Union([Type.String(), Type.Null()], { description: 'the preset checked against; null: only the generic checks (not_cropped, cutout)' }),
    passed: Type.Boolean(),
    checks: Type.Array(
      Type.Object({
        code: ComplianceCode,
        passed: Type.Boolean(),
        measured: Type.Unknown({ description: 'what the finished file (or the cut-out) shows' }),
        required: Type.Unknown({ description: "what the channel's rule asks for" }),
      }),
    ),
  },
  {
    title: 'Compliance',
    description: "Whether the finished image meets its channel's rules, measured on the finished pixels and the cut-out, never read from the settings; null until the image is finished with its current settings.",
  },
);

export const ImageSchema = Type.Object(
  {
    image_id: Str,
    url: Nullable(
      Type.String({
        description: 'A render is a public asset URL (…/files/…); a fetched or uploaded original is served at …/v1/files/… to this organization\'s keys and sessions only.',
      }),
    ),
    thumbnail_url: Nullable(Str),
    width: Nullable(Type.Integer()),
    height: Nullable(Type.Integer()),
    position: Type.Integer(),
    origin: Type.Union(['fetched', 'uploaded', 'video_frame', 'rendered'].map((s) => Type.Literal(s))),
    image_review_status: ReviewStatusSchema,
    settings: Type.Object({}, { additionalProperties: true }),
    cutout: Nullable(CutoutSchema),
    compliance: Nullable(ComplianceSchema),
    error: Problem,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Image' },
);

const Dimensions = Type.Object({ width: Type.Number(), height: Type.Number(), depth: Type.Number() }, { description: 'metres' });

const Metres = Type.Number({ exclusiveMinimum: 0, maximum: 100 });

export const CaptureSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('auto'), Type.Literal('turntable'), Type.Literal('walkaround')], {
      description: 'auto (default): cameras recovered from the photos; turntable: given or equal angles; walkaround: recovered, photos taken around the product',
    }),
    azimuths_deg: Type.Optional(Type.Array(Type.Number({ minimum: -3600, maximum: 3600 }), { minItems: 1, maxItems: 200, description: 'turntable: one angle per image, in order' })),
    elevation_deg: Type.Optional(Type.Number({ minimum: -80, maximum: 80, description: 'turntable: camera elevation, default 0' })),
  },
  { additionalProperties: false, title: 'Capture' },
);

export const DimensionsInputSchema = Type.Object(
  { height: Type.Optional(Metres), width: Type.Optional(Metres), depth: Type.Optional(Metres) },
  { additionalProperties: false, title: 'DimensionsInput', description: "The product's real size in metres; the model is scaled so the given side matches (height first)." },
);

export const ModelQualitySchema = Type.Object(
  {
    method: Type.Union(['posed_stereo', 'posed_hull', 'turntable_hull', 'relief_card', 'external', 'imported'].map((s) => Type.Literal(s))),
    pose_source: Nullable(Type.Union(['sfm', 'mat', 'given', 'assumed'].map((s) => Type.Literal(s)))),
    views_used: Type.Integer({ minimum: 0 }),
    views_total: Type.Integer({ minimum: 0 }),
    coverage: Nullable(
      Type.Object(
        { largest_gap_deg: Type.Number(), elevation_min_deg: Type.Number(), elevation_max_deg: Type.Number() },
        { description: 'Where the placed cameras stood round the product: the widest azimuth gap between neighbours and the elevations (degrees).' },
      ),
    ),
    heldout_iou: Nullable(
      Type.Object(
        { median: Type.Number(), min: Type.Number(), views: Type.Integer({ minimum: 0 }) },
        { description: 'Silhouette agreement with photos the model was made without (leave one out, up to 8 views spread around); the gate needs a median of 0.85.' },
      ),
    ),
    silhouette_iou: Nullable(Type.Object({ median: Type.Number(), min: Type.Number() }, { description: 'Agreement with the photos the model was made from.' })),
    stereo_coverage: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Share of the surface measured by multi-view stereo; null when stereo did not run.' })),
    largest_piece: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    scale_source: Type.Union(['given', 'mat', 'assumed', 'file'].map((s) => Type.Literal(s))),
  },
  { title: 'ModelQuality', description: 'How the model was made and how well it agrees with its photos.' },
);

export const ModelWarningSchema = Type.Object(
  {
    code: Type.Union([Type.Literal('unusual_size'), Type.Literal('over_budget')], {
      description:
        'unusual_size: the largest side is over 10 m or under 1 cm, which usually means the file is not in metres; over_budget: a delivery could not meet its budget and keep SSIM ≥ 0.95, so the smallest file that keeps it is delivered (see `delivery` and `bytes`)',
    }),
    message: Type.String({ description: 'What to check, in words for the person reviewing the product.' }),
    delivery: Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('mobile'), Type.Literal('usdz')], { description: 'over_budget only: the delivery over its budget' })),
    bytes: Type.Optional(Type.Integer({ description: "over_budget only: that delivery's size" })),
  },
  { title: 'ModelWarning' },
);

const GlbDeliverySchema = Type.Object(
  {
    url: Str,
    bytes: Type.Integer(),
    triangles: Type.Integer(),
    max_texture_px: Type.Integer({ description: 'The longest side of its largest texture; 0 without textures.' }),
    ssim: Nullable(Type.Number({ description: 'Lowest structural similarity to the master over 8 rendered views (1 when it is the master); null when no renderer checked it.' })),
  },
  { title: 'GlbDelivery' },
);

export const ModelDeliverySchema = Type.Object(
  {
    web: GlbDeliverySchema,
    mobile: GlbDeliverySchema,
    usdz: Type.Object({ url: Str, bytes: Type.Integer(), ssim: Nullable(Type.Number()) }, { title: 'UsdzDelivery' }),
    usdz_variants: Type.Record(Str, Str, { description: 'one USDZ per variant, name -> URL (Quick Look cannot switch variants); empty without variants' }),
  },
  { title: 'ModelDelivery', description: 'The files made from the master, each within its budget (see docs/delivery.md).' },
);

const BudgetSchema = Type.Object(
  {
    max_bytes: Type.Optional(Type.Integer({ minimum: 10_000, maximum: 1_000_000_000 })),
    max_triangles: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000_000 })),
    max_texture_px: Type.Optional(Type.Integer({ minimum: 64, maximum: 16_384 })),
  },
  { additionalProperties: false },
);

export const DeliveryBudgetsSchema = Type.Object(
  { web: Type.Optional(BudgetSchema), mobile: Type.Optional(BudgetSchema), usdz: Type.Optional(BudgetSchema) },
  { additionalProperties: false, minProperties: 1, title: 'DeliveryBudgets', description: "This model's own budgets, laid over the installation's; the model is re-optimised from its master in a job." },
);

export const ModelSchema = Type.Object(
  {
    url: Type.Union([Str, Type.Null()], { description: 'The web delivery.' }),
    master_url: Type.Union([Str, Type.Null()], { description: 'The master GLB every delivery is made from; secret keys and sessions only (a publishable key gets 404 for it).' }),
    usdz_url: Nullable(Str),
    delivery: Nullable(ModelDeliverySchema),
    delivery_budgets: Nullable(DeliveryBudgetsSchema),
    decision: ReviewStatusSchema,
    dimensions: Nullable(Dimensions),
    triangles: Nullable(Type.Integer()),
    bytes: Nullable(Type.Integer()),
    settings: Type.Object({}, { additionalProperties: true }),
    variants: Type.Array(Type.Object({ name: Str }), { description: 'KHR_materials_variants of the model, in the file’s order; empty when it has none' }),
    origin: Type.Union([Type.Literal('imported'), Type.Literal('generated')]),
    quality: Nullable(ModelQualitySchema),
    warnings: Type.Array(ModelWarningSchema, {
      description: 'What a reviewer should look at; never a reason the model was refused. Recomputed when the model is rescaled or replaced.',
    }),
  },
  { title: 'Model' },
);

export const ProductSchema = Type.Object(
  {
    object: Type.Literal('product'),
    id: Str,
    org_id: Str,
    title: Nullable(Str),
    custom_id: Nullable(Str),
    status: ProductStatusSchema,
    model_status: ModelStatusSchema,
    model_url: Nullable(Str),
    thumbnail_url: Nullable(Str),
    tags: Type.Array(Str),
    source: Type.Object({ kind: Str }, { additionalProperties: true }),
    images: Type.Array(ImageSchema),
    model: Nullable(ModelSchema),
    analysis_status: Type.Union(['none', 'pending', 'done', 'failed'].map((v) => Type.Literal(v))),
    images_status: Type.Union(['none', 'ingesting', 'ready', 'failed', 'ordered'].map((v) => Type.Literal(v)), {
      description: 'ordered: renders of the model were ordered and are being made',
    }),
    progress: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    step: Nullable(Str),
    error: Problem,
    created_at: Timestamp,
    updated_at: Timestamp,
    published_at: Nullable(Timestamp),
  },
  { title: 'Product' },
);

export const PublicProductSchema = Type.Object(
  { id: Str, title: Nullable(Str), model_url: Nullable(Str), thumbnail_url: Nullable(Str), model_status: ModelStatusSchema },
  { title: 'PublicProduct', description: 'What a publishable key sees: a published product whose model is ready.' },
);

export const QuoteSchema = Type.Object(
  {
    object: Type.Literal('quote'),
    operation: Type.Union([Type.Literal('create'), Type.Literal('order_model'), Type.Literal('order_renders')]),
    org_id: Str,
    product_id: Nullable(Str),
    credits: Type.Integer(),
    balance_credits: Type.Integer(),
    estimated_seconds: Type.Integer({
      description:
        "Expected wall time in seconds: the steps' costs measured on this installation (per photo for cutting out and finding the cameras, per job for the other steps), averaged over recent jobs; a fixed prior until a few jobs have run.",
    }),
    expires_at: Timestamp,
    resume_token: Type.String({ description: 'Commit with POST /v1/products {resume_token}. Single use.' }),
    input: Type.Object({}, { additionalProperties: true }),
  },
  { title: 'Quote' },
);

const Url = Type.String({ minLength: 1, maxLength: 2048, format: 'uri' });
export const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });
export const CustomId = Type.String({ minLength: 1, maxLength: 200 });

export const CreateBodySchema = Type.Object(
  {
    image_urls: Type.Optional(Type.Array(Url, { minItems: 1, maxItems: 60 })),
    video_url: Type.Optional(Url),
    source_url: Type.Optional(Url),
    model_url: Type.Optional(Url),
    image_paths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: 60 })),
    model_path: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'A GLB model uploaded with POST /v1/uploads; imported like model_url.' })),
    resume_token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    custom_id: Type.Optional(CustomId),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 50 })),
    org_id: Type.Optional(Str),
    generate_model: Type.Optional(Type.Boolean()),
    capture: Type.Optional(CaptureSchema),
    dimensions: Type.Optional(DimensionsInputSchema),
  },
  { additionalProperties: false, description: 'Exactly one of image_urls, video_url, source_url, model_url, image_paths, model_path, resume_token.' },
);

const Repeated = (item: ReturnType<typeof Type.String>) => Type.Optional(Type.Array(item, { maxItems: 200 }));

export const ListQuerySchema = {
  tag: Repeated(Tag),
  tag_match: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('any')])),
  status: Repeated(Type.String({ enum: [...PRODUCT_STATUSES] })),
  model_status: Repeated(Type.String({ enum: [...MODEL_STATUSES] })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  custom_id: Type.Optional(CustomId),
  channel_ready: Type.Optional(
    Type.Boolean({ description: "false: products with an image whose finished file failed a check of its preset (see an image's compliance); true: none such" }),
  ),
};
