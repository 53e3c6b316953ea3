/** What other modules may use of `quotes`; nothing else of the folder is theirs to touch. */
export { assertPlanAllows } from './plan.js';
export { type CreateInput } from './pricing.js';
export { type QuotePayload } from './quote-token.js';
export { assertPriceUnchanged, chargeQuote, quote, readQuote, redeemQuote, type QuoteJson, type QuotedOrganization } from './quotes.service.js';
export { StepTimer, recordStepDurations } from './step-costs.js';
