/**
 * Timeline titles Paydesk wrote before they were said in staff's words (the gateway's operation
 * names), as the BFF writes them now. Older payouts keep their stored titles; the raw exchange
 * under each entry's details still names the operation, for engineers.
 */
const OLD_TITLES: Readonly<Record<string, string>> = {
  'payout prepared; payout-check sent':
    "payout prepared; payee's details sent to the gateway for checking",
  'payout-check': "check of the payee's details",
  'status after payout-check': 'status after the check',
  'status before payout-pay': 'status before paying',
  'payout-pay': 'payment of the checked payout',
  'payout (v2)': 'single payout sent',
  'expired at the gateway before payout-pay': 'expired at the gateway before it was paid',
  'expired at the gateway before payout': 'expired at the gateway before it was paid',
};

/** A payout timeline entry's title as staff read it. */
export function timelineTitle(title: string): string {
  return OLD_TITLES[title] ?? title;
}
