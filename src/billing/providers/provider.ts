// The provider seam: each folder beside this file (manual/, stripe/) implements BillingProvider.
export type { BillingAccount, BillingProvider, BillingProviderName, CheckoutResult, ReturnContext } from '../contract.js';
