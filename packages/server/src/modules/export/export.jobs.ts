import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { handleJob } from '../../platform/jobs/define.js';
import { emitEvent } from '../events/index.js';
import { finishAll } from './export.finishing.js';
import { downloadUrl, LINK_TTL_SECONDS } from './export.link.js';
import { pendingEntries } from './export.plan.js';
import { planOfExport } from './export.service.js';
import { checkPlan, nonCompliantText } from './export.compliance.js';
import { finishExportJob } from './export.job-defs.js';

type FinishData = Static<typeof finishExportJob.payload>;

/** Runs `export.finish` (export.job-defs.ts): finishes a queued export's images, marks it ready (with its event), then mails the link once. */
const finishExportHandlers = {
  handle: async (deps: Deps, { export_id: exportId }: FinishData) => {
    const found = await planOfExport(deps, exportId);
    if (!found) return;
    const db = deps.database.db;
    const pending = await pendingEntries(deps, found.plan);
    await finishAll(deps, pending, async (done) => {
      await db.updateTable('exports').set({ pending_images: pending.length - done, updated_at: deps.clock.now().toISOString() }).where('id', '=', exportId).execute();
    });
    const url = downloadUrl(deps.config.publicUrl, deps.config.secret, exportId, deps.clock.now().getTime());
    const at = deps.clock.now().toISOString();
    await inTransaction(db, async (trx) => {
      const row = await trx.selectFrom('exports').select('state').where('id', '=', exportId).executeTakeFirst();
      if (row?.state !== 'queued') return;
      await trx.updateTable('exports').set({ state: 'ready', pending_images: 0, updated_at: at }).where('id', '=', exportId).execute();
      await emitEvent(trx, found.row.org_id, 'export.ready', { id: exportId, images: found.plan.entries.length, download_url: url }, at);
    });
    if (found.row.mailed_at) return;
    const { included, nonCompliant } = await checkPlan(deps, found.plan);
    await deps.mailer.send({
      to: found.row.notify_email,
      subject: 'Your Plinth export is ready',
      text:
        `Your export of ${included.length} finished images from ${found.plan.productIds.length} products is ready.\n\n` +
        `Download it here (no sign-in needed; the link works for ${LINK_TTL_SECONDS / 86400} days):\n${url}\n` +
        (nonCompliantText(found.plan, nonCompliant) ? `\n${nonCompliantText(found.plan, nonCompliant)}` : ''),
    });
    await db.updateTable('exports').set({ mailed_at: deps.clock.now().toISOString() }).where('id', '=', exportId).execute();
  },
  // An export that will not finish says so instead of staying queued.
  onFailed: async (deps: Deps, { export_id: exportId }: FinishData) => {
    const error = JSON.stringify({ code: 'processing_failed', message: 'The export could not be finished.' });
    await deps.database.db
      .updateTable('exports')
      .set({ state: 'failed', error, updated_at: deps.clock.now().toISOString() })
      .where('id', '=', exportId)
      .where('state', '=', 'queued')
      .execute();
  },
};

export function registerExportJobs(deps: Deps) {
  deps.jobs.register(handleJob(finishExportJob, finishExportHandlers), deps);
}
