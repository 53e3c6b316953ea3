/** What other modules may use of analytics. */
export { experimentOutcomes, type ArmOutcome } from './analytics.repo.js';
