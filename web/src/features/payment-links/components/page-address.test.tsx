import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CompactPageAddress, shortAddress } from './page-address';

describe('a page address in a list row', () => {
  it('when the address is a web address, then its end opens it in a new tab, whole in the title', () => {
    const url = 'https://gateway.example/paynet/hosted/800012/9f3c2a1b7e';
    render(<CompactPageAddress value={url} />);
    const link = screen.getByRole('link', { name: `Open the page address in a new tab: ${url}` });
    expect(link).toHaveAttribute('href', url);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('title', url);
    expect(link).toHaveTextContent(shortAddress(url));
    expect(shortAddress(url)).toBe('…00012/9f3c2a1b7e');
  });

  it('when the gateway gave something else (javascript:, data:), then it is shown, never a link', () => {
    render(<CompactPageAddress value="javascript:alert(1)" />);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByTitle('javascript:alert(1)').getAttribute('href')).toBeNull();
  });
});
