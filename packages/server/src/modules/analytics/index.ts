/** What other modules may use of analytics. */
export { type ArmOutcome } from './analytics.repo.js';
export { armOutcomes } from './usage.service.js';
