// Test cards (sandbox/README.md "Test cards") and the card data the sandbox keeps.
import type { CardBehaviour, CardData } from '../state/types.js';

export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4111111111111111': 'approve',
  '4000000000000002': 'decline',
  '4000000000000119': 'error',
  '4000000000000259': 'filter',
  '4000000000003220': '3ds2-challenge',
  '4000000000003063': '3ds-method',
  '4000000000000101': '3ds1',
};

/** Amount that keeps an order `processing` for ten minutes (timeout tests). */
export const SLOW_AMOUNT_MINOR = 1313n;
export const SLOW_PROCESSING_MS = 10 * 60 * 1000;

export function behaviourOf(pan: string): CardBehaviour {
  return TEST_CARDS[pan] ?? 'approve';
}

export function brandOf(pan: string): string {
  if (pan.startsWith('4')) return 'VISA';
  const two = Number(pan.slice(0, 2));
  const four = Number(pan.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  if (two === 34 || two === 37) return 'AMEX';
  if (pan.startsWith('62')) return 'UNIONPAY';
  if (pan.startsWith('6')) return 'DISCOVER';
  if (four >= 3528 && four <= 3589) return 'JCB';
  return 'UNKNOWN';
}

export function cardData(pan: string, holder: string, expMonth: string, expYear: string): CardData {
  return {
    bin: pan.slice(0, 6),
    lastFour: pan.slice(-4),
    brand: brandOf(pan),
    expMonth,
    expYear,
    holder,
    behaviour: behaviourOf(pan),
  };
}

export function maskedNumber(card: CardData): string {
  return `${card.bin}******${card.lastFour}`;
}

/** Whether the card's expiry month has passed at `now` (the card is valid through its month). */
export function isExpired(expMonth: string, expYear: string, now: number): boolean {
  const d = new Date(now);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  const y = Number(expYear);
  const m = Number(expMonth);
  return y < year || (y === year && m < month);
}

export interface Outcome {
  status: 'approved' | 'declined' | 'error' | 'filtered';
  errorMessage?: string;
  errorCode?: string;
}

/** The final outcome a card gives when no 3-D Secure step intervenes. */
export function outcomeOf(behaviour: CardBehaviour): Outcome {
  switch (behaviour) {
    case 'decline':
      return {
        status: 'declined',
        errorMessage: 'Card declined by the issuer (test card)',
        errorCode: 'DECLINED',
      };
    case 'error':
      return {
        status: 'error',
        errorMessage: 'Processing error at the issuer (test card)',
        errorCode: 'PROCESSING_ERROR',
      };
    case 'filter':
      return {
        status: 'filtered',
        errorMessage: 'Filtered by the risk rules (test card)',
        errorCode: 'FILTERED',
      };
    default:
      return { status: 'approved' };
  }
}
