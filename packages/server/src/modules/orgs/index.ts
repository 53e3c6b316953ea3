/** What other modules may use of `orgs`: organizations, their members and their credits (a ledger). */
export { addMember, bootstrap, countOrganizations, PLANS, type BootstrapInput, type BootstrapResult, type Plan } from './orgs.service.js';
export { chargeCredits, creditStatement, grantCredits, ledgerPage, organizationState, refundCredits } from './credits.service.js';
