import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { AppError } from '../../core/errors.js';
import { isUniqueViolation } from '../../platform/db/index.js';
import { chargeCredits, organizationState } from '../orgs/index.js';
import { assertCredits, assertPlanAllows } from './plan.js';
import { priceOf } from './pricing.js';
import { signQuote, verifyQuote, type Operation, type QuotePayload } from './quote-token.js';
import { loadStepCosts } from './step-costs.js';

/**
 * The quote: what an operation (a create, an order of a model or of renders) costs, signed into a resume token
 * that a commit redeems once. `products` asks for a quote and redeems it; this module owns the price, the token
 * and the record of used tokens.
 */

export interface QuoteJson {
  object: 'quote';
  operation: QuotePayload['op'];
  org_id: string;
  product_id: string | null;
  credits: number;
  balance_credits: number;
  estimated_seconds: number;
  expires_at: string;
  resume_token: string;
  input: Record<string, unknown>;
}

export interface QuoteRequest {
  orgId: string;
  op: Operation;
  input: Record<string, unknown>;
  productId: string | null;
  /** the organization's active products, for the plan's cap (a create adds one) */
  activeProducts: number;
  /** the caller's own refusals (a custom_id in use), checked once the plan allows and before the price */
  beforePricing?: () => Promise<void>;
}

/** A quote writes nothing: the token carries the input and the price, signed. */
export async function quote(deps: Deps, q: QuoteRequest): Promise<QuoteJson> {
  const db = deps.database.db;
  const org = await organizationState(db, q.orgId);
  if (!org) throw new AppError('not_found', 'No such organization.');
  assertPlanAllows(org, { addsProduct: q.op === 'create', activeProducts: q.activeProducts });
  await q.beforePricing?.();
  const price = priceOf(q.op, q.input, deps.config.pricing, await loadStepCosts(db));
  assertCredits(org.credit_balance, price.credits);
  const now = deps.clock.now().getTime();
  const exp = Math.floor(now / 1000) + deps.config.pricing.quoteTtlSeconds;
  const resumeToken = signQuote(deps.config.secret, { op: q.op, org: q.orgId, ...(q.productId && { product: q.productId }), input: q.input, credits: price.credits, exp });
  return {
    object: 'quote',
    operation: q.op,
    org_id: q.orgId,
    product_id: q.productId,
    credits: price.credits,
    balance_credits: org.credit_balance,
    estimated_seconds: price.estimatedSeconds,
    expires_at: new Date(exp * 1000).toISOString(),
    resume_token: resumeToken,
    input: q.input,
  };
}

/** The quote a resume token carries, once its signature and expiry are checked. */
export const readQuote = (deps: Deps, token: string): QuotePayload => verifyQuote(deps.config.secret, token, deps.clock.now().getTime());

/** A commit that quotes a price the pricing no longer gives is refused: the caller asks for a new quote. */
export function assertPriceUnchanged(deps: Deps, payload: QuotePayload) {
  const now = priceOf(payload.op, payload.input, deps.config.pricing).credits;
  if (now !== payload.credits) {
    throw new AppError('quote_changed', 'The price changed since the quote; request a new quote.', {
      reason: 'price_changed',
      quoted_credits: payload.credits,
      credits: now,
    });
  }
}

/**
 * Marks a quote used, in the commit's transaction (whose organization the caller has locked): a token redeems
 * once. Answers the organization as it is now, for the plan and balance checks of the commit.
 */
export async function redeemQuote(trx: Executor, payload: QuotePayload, orgId: string, at: string) {
  try {
    await trx.insertInto('quote_uses').values({ nonce: payload.nonce, org_id: orgId, product_id: payload.product ?? null, created_at: at }).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', 'This resume_token was already used.', { reason: 'resume_token_used' });
    throw err;
  }
  return (await organizationState(trx, orgId))!;
}

export type QuotedOrganization = Awaited<ReturnType<typeof redeemQuote>>;

/**
 * The commit's checks and charge, in its transaction: the plan still allows it, the balance still covers the
 * quoted price, and the credits leave the balance with one ledger entry naming what they paid for.
 */
export async function chargeQuote(
  trx: Executor,
  org: QuotedOrganization,
  payload: QuotePayload,
  charge: { addsProduct: boolean; activeProducts: number; ref: string; at: string },
) {
  assertPlanAllows(org, { addsProduct: charge.addsProduct, activeProducts: charge.activeProducts });
  assertCredits(org.credit_balance, payload.credits);
  if (payload.credits > 0) {
    const left = await chargeCredits(trx, { orgId: org.id, amount: payload.credits, reason: payload.op, ref: charge.ref, at: charge.at });
    if (left === null) assertCredits(0, payload.credits);
  }
}

