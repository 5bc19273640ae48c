import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CompactPageAddress, shortAddress } from './page-address';

describe('a page address in a list row', () => {
  it('when the address is a web address, then its end opens it in a new tab, whole in the title', () => {
    const url = 'https://gateway.example/paynet/hosted/800012/9f3c2a1b7e';
    render(<CompactPageAddress value={url} />);
    const link = screen.getByRole('link', {
      name: '…00012/9f3c2a1b7e: open the page address in a new tab',
    });
    expect(link).toHaveAttribute('href', url);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('title', url);
    expect(link).toHaveAccessibleDescription(url);
    expect(link).toHaveTextContent(shortAddress(url));
    expect(shortAddress(url)).toBe('…00012/9f3c2a1b7e');
  });

  it('when the link is read out, then its name begins with the text it shows, so that saying what one sees reaches it (WCAG 2.5.3, axe label-content-name-mismatch; QA)', () => {
    const url = 'http://127.0.0.1:8290/paynet/form/5b0c7f44bff6ae63a484f936';
    render(<CompactPageAddress value={url} />);
    const link = screen.getByRole('link', {
      name: '…bff6ae63a484f936: open the page address in a new tab',
    });
    expect(link).toHaveTextContent(/^…bff6ae63a484f936$/);
    expect(link.getAttribute('aria-label')?.startsWith(link.textContent)).toBe(true);
    // What the name said before stays said: the whole address, as its description.
    expect(link).toHaveAccessibleDescription(url);
  });

  it('when the gateway gave something else (javascript:, data:), then it is shown, never a link', () => {
    render(<CompactPageAddress value="javascript:alert(1)" />);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByTitle('javascript:alert(1)').getAttribute('href')).toBeNull();
  });
});
