import { AppError } from '../../core/errors.js';

interface OrgState {
  plan: string;
  active_product_cap: number | null;
  credit_balance: number;
}

const REFUSED: Record<string, { reason: string; message: string }> = {
  none: { reason: 'no_plan', message: 'The organization has no plan.' },
  trial_used: { reason: 'trial_used', message: 'The organization has used its free trial.' },
  payment_failed: { reason: 'payment_failed', message: 'The organization\'s last payment failed.' },
};

/** 402 when the plan refuses; checked at quote time and again at commit. */
export function assertPlanAllows(org: OrgState, opts: { addsProduct: boolean; activeProducts: number }) {
  const refused = REFUSED[org.plan];
  if (refused) throw new AppError('plan_required', refused.message, { reason: refused.reason, plan: org.plan });
  if (opts.addsProduct && org.active_product_cap !== null && opts.activeProducts >= org.active_product_cap) {
    throw new AppError('plan_required', 'The plan\'s active-product cap is reached; archive or delete products, or upgrade.', {
      reason: 'active_product_cap',
      active_product_cap: org.active_product_cap,
      active_products: opts.activeProducts,
    });
  }
}

/** 429 quota_exceeded when the balance does not cover the price. */
export function assertCredits(balance: number, required: number) {
  if (balance < required) {
    throw new AppError('quota_exceeded', `This needs ${required} credits; the balance is ${balance}.`, {
      shortfall_credits: required - balance,
      required_credits: required,
      balance_credits: balance,
    });
  }
}
