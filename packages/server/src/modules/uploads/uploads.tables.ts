import type { Generated } from 'kysely';

export interface UploadsTable {
  id: string;
  org_id: string;
  path: string;
  storage_key: string;
  bytes: number;
  content_type: string;
  /** 'image' | 'model' */
  kind: Generated<string>;
  /** when a product first used it; null: unused, swept after the retention period */
  used_at: string | null;
  /** the product that first used it */
  used_by: string | null;
  created_at: string;
}

/** This module's table, created by `uploads.migration.ts`; `src/db.ts` adds it to the app's `DB`. */
export interface UploadsTables {
  uploads: UploadsTable;
}
