// Text as it is seen and as it is heard. A confirmation's amount is shown in the form every
// screen uses ('€20.00') and read out in words ('20.00 euros', visually hidden; the symbol form
// is aria-hidden): `seenAs` finds the element that shows `text`, `heardText` says what a screen
// reader reads of it.
import type { MatcherFunction } from '@testing-library/react';

const HIDDEN_FROM_SIGHT = '[style*="clip-path"]';
const HIDDEN_FROM_READERS = '[aria-hidden="true"]';

function textWithout(element: Element, hidden: string): string {
  const copy = element.cloneNode(true) as Element;
  copy.querySelectorAll(hidden).forEach((node) => {
    node.remove();
  });
  return copy.textContent.replace(/\s+/g, ' ').trim();
}

/** What is seen of `element`: its text without what is hidden from sight. */
export function seenText(element: Element): string {
  return textWithout(element, HIDDEN_FROM_SIGHT);
}

/** What a screen reader reads of `element`: its text without what is hidden from it. */
export function heardText(element: Element): string {
  return textWithout(element, HIDDEN_FROM_READERS);
}

/** A `*ByText` matcher: the innermost element whose seen text is `text`. */
export function seenAs(text: string): MatcherFunction {
  return (_content, element) =>
    element !== null &&
    seenText(element) === text &&
    ![...element.children].some((child) => seenText(child) === text);
}
