import type { Kysely, Migration } from 'kysely';

/** The catalogue: products, their tags and images, and the quote tokens already used. */
export const productsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('title', 'text')
      .addColumn('custom_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('model_status', 'text', (c) => c.notNull())
      .addColumn('model', 'text')
      .addColumn('thumbnail_key', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('generate_model', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('analysis', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('images_status', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('progress', 'integer')
      .addColumn('step', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('published_at', 'text')
      .execute();
    await db.schema.createIndex('products_org').on('products').columns(['org_id', 'id']).execute();
    await db.schema.createIndex('products_org_status').on('products').columns(['org_id', 'status', 'id']).execute();
    await db.schema.createIndex('products_custom_id').on('products').columns(['org_id', 'custom_id']).unique().execute();
    await db.schema
      .createTable('product_tags')
      .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('product_tags_pk', ['product_id', 'tag'])
      .execute();
    await db.schema.createIndex('product_tags_org_tag').on('product_tags').columns(['org_id', 'tag', 'product_id']).execute();
    await db.schema
      .createTable('images')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('review_status', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('storage_key', 'text')
      .addColumn('content_type', 'text')
      .addColumn('mask_key', 'text')
      .addColumn('thumb_key', 'text')
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('bytes', 'integer')
      .addColumn('sha256', 'text')
      .addColumn('analysis', 'text')
      .addColumn('source_url', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('images_product').on('images').columns(['product_id', 'position']).execute();
  },
};
