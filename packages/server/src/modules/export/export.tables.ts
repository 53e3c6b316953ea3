export interface ExportsTable {
  id: string;
  org_id: string;
  selection_hash: string;
  selection: string; // JSON: {product_ids, review_statuses}
  notify_email: string;
  state: 'queued' | 'ready' | 'failed';
  total_images: number;
  pending_images: number;
  error: string | null;
  mailed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** This module's table, created by `export.migration.ts`; `src/db.ts` adds it to the app's `DB`. */
export interface ExportTables {
  exports: ExportsTable;
}
