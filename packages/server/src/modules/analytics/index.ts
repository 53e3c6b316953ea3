/** What other modules may use of analytics. */
export { deleteExposures, experimentOutcomes, type ArmOutcome } from './analytics.repo.js';
