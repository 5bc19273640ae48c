import type { CSSProperties } from 'react';
import { formatMoney } from '../lib/format';
import { formatMoneyInWords } from '../lib/money';

/**
 * Hidden from sight but read by screen readers (the usual clip pattern): words meant for
 * assistive technology only.
 */
export const VISUALLY_HIDDEN: CSSProperties = {
  border: 0,
  clipPath: 'inset(50%)',
  height: '1px',
  margin: '-1px',
  overflow: 'hidden',
  padding: 0,
  position: 'absolute',
  whiteSpace: 'nowrap',
  width: '1px',
};

/**
 * An amount in a confirmation's question: seen in the form every screen uses ('€5.55'), and read
 * out with its currency in words ('5.55 euros'), which a screen reader cannot get wrong.
 */
export function SpokenMoney({ amount, currency }: { amount: string; currency: string }) {
  return (
    <>
      <span aria-hidden="true">{formatMoney(amount, currency)}</span>
      <span style={VISUALLY_HIDDEN}>{formatMoneyInWords(amount, currency)}</span>
    </>
  );
}
