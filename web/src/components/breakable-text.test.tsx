import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { breakablePieces } from './breakable-text';
import { EmailText } from './email-text';

describe('where a word may break', () => {
  it('when an e-mail address is short, then it may break after its “@” only', () => {
    expect(breakablePieces('support.demo@paydesk.local')).toEqual([
      'support.demo@',
      'paydesk.local',
    ]);
    expect(breakablePieces('ops@paydesk.io')).toEqual(['ops@', 'paydesk.io']);
  });

  it('when a name or domain of an address is long, then it may also break before its dots, never inside a name', () => {
    expect(
      breakablePieces('jeanbaptiste.rousseaudelacroix@customerservices.example.co.uk'),
    ).toEqual([
      'jeanbaptiste',
      '.rousseaudelacroix@',
      'customerservices',
      '.example',
      '.co',
      '.uk',
    ]);
  });

  it('when an id or a path is long, then it may break after “/” and “_”', () => {
    expect(breakablePieces('transactions/card_ref_0001')).toEqual([
      'transactions/',
      'card_',
      'ref_',
      '0001',
    ]);
  });

  it('when a word is short or a number, then it stays whole, and the text around it too', () => {
    expect(breakablePieces('paydesk.local')).toEqual(['paydesk.local']);
    expect(breakablePieces('€99,999,999,999.99 returned')).toEqual(['€99,999,999,999.99 returned']);
    expect(breakablePieces('Paydesk (prepared by finance.team@example.com)')).toEqual([
      'Paydesk (prepared by finance.team@',
      'example.com)',
    ]);
  });

  it('when an e-mail address is shown, then it reads and copies as itself, its break points being <wbr>s', () => {
    const { container } = render(
      <EmailText value="jeanbaptiste.rousseaudelacroix@paydesk.local" />,
    );
    expect(container).toHaveTextContent(/^jeanbaptiste\.rousseaudelacroix@paydesk\.local$/);
    expect(container.innerHTML).toBe('jeanbaptiste<wbr>.rousseaudelacroix@<wbr>paydesk.local');
  });
});
