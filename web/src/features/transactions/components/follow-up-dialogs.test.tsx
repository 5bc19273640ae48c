import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { heardText, seenAs, seenText } from '../../../test/seen-text';

// A refusal that names fields of a follow-up's form sends its confirmation back to the form, the
// server's words under those fields; each goes as soon as its field is edited.

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;

function financeWith(transaction = makeTransaction(1, { amount: '20.00' })) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    transactions: [transaction],
  });
}

/** A 400 VALIDATION_FAILED naming `fields` (path → message), as the BFF sends it. */
function refusal(fields: Record<string, string>) {
  return {
    status: 400,
    body: {
      error: {
        code: 'VALIDATION_FAILED',
        message: 'invalid',
        requestId: 'r-400',
        details: {
          fields: Object.entries(fields).map(([path, message]) => ({
            path,
            rule: 'custom',
            message,
          })),
        },
      },
    },
  };
}

/** Opens the order's Capture and presses Enter in its amount (the whole hold): its confirmation. */
async function confirmWholeCapture(bff: FakeBff) {
  const app = renderApp(PATH, bff);
  await screen.findByRole('heading', { name: 'Order 900001' });
  await app.user.click(screen.getByRole('button', { name: 'Capture' }));
  await app.user.click(await screen.findByLabelText(/Amount to capture/));
  await app.user.keyboard('{Enter}');
  return { app, dialog: await screen.findByRole('dialog', { name: 'Confirm the capture' }) };
}

describe('a server refusal under a follow-up’s field', () => {
  it('when the refused capture amount is edited, then the server’s message under it goes at once, and no alert takes its place', async () => {
    const bff = financeWith(makeTransaction(1, { type: 'preauth', amount: '20.00' }));
    bff.on('POST /api/transactions/:id/capture', () =>
      refusal({ amount: 'must be at most the authorized amount' }),
    );
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const field = await screen.findByLabelText(/Amount to capture/);
    await app.user.clear(field);
    await app.user.type(field, '12');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €12.00' }));
    const dialog = await screen.findByRole('dialog', { name: 'Capture' });
    const amount = await within(dialog).findByLabelText(/Amount to capture/);
    expect(amount).toHaveAccessibleDescription('This must be at most the authorized amount.');
    await app.user.type(amount, '.5');
    expect(amount).toHaveAccessibleDescription('€7.50 of the hold will be released.');
    expect(amount).toHaveAttribute('aria-invalid', 'false');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when one of two refused return fields is edited, then only its message goes; the other stays until its own field is edited', async () => {
    const bff = financeWith();
    bff.on('POST /api/transactions/:id/return', () =>
      refusal({
        reasonCode: 'is not allowed for this order',
        comment: 'must not name the customer',
      }),
    );
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'Ann Smith paid twice');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €20.00' }));
    const dialog = await screen.findByRole('dialog', { name: 'Return' });
    const reason = await within(dialog).findByLabelText(/Reason/);
    const comment = within(dialog).getByLabelText(/Comment/);
    await waitFor(() => {
      expect(comment).toHaveAccessibleDescription('This must not name the customer. 20 / 255');
    });
    expect(reason).toHaveAccessibleDescription('This is not allowed for this order.');
    await app.user.clear(comment);
    await app.user.type(comment, 'paid twice');
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 10 / 255',
    );
    expect(comment).toHaveAttribute('aria-invalid', 'false');
    expect(reason).toHaveAccessibleDescription('This is not allowed for this order.');
    await app.user.selectOptions(reason, 'fraud');
    expect(reason).not.toHaveAccessibleDescription();
    expect(reason).toHaveAttribute('aria-invalid', 'false');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when the refused void comment is edited, then its message goes; sent and refused again, it is said again', async () => {
    const bff = financeWith();
    bff.on('POST /api/transactions/:id/void', () =>
      refusal({ comment: 'the gateway refused this comment' }),
    );
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await app.user.type(await screen.findByLabelText(/Comment/), 'customer cancelled');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
    let dialog = await screen.findByRole('dialog', { name: 'Void the order' });
    let comment = await within(dialog).findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription('The gateway refused this comment. 18 / 255');
    await app.user.type(comment, ' by phone');
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 27 / 255',
    );
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
    dialog = await screen.findByRole('dialog', { name: 'Void the order' });
    comment = await within(dialog).findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription('The gateway refused this comment. 27 / 255');
    expect(comment).toHaveValue('customer cancelled by phone');
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/void`)).toHaveLength(2);
  });
});

describe('a follow-up’s comment', () => {
  it('when a void comment is typed, then its helper text counts the characters against the 255 allowed, and past them says so at once, before Continue', async () => {
    const app = renderApp(PATH, financeWith());
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    const comment = await screen.findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 0 / 255',
    );
    await app.user.type(comment, 'customer cancelled');
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 18 / 255',
    );
    expect(comment).toHaveAttribute('aria-invalid', 'false');
    // Pasted past the limit: the field says by how much at once (as the API counts, ends trimmed).
    await app.user.click(comment);
    await app.user.paste(`${'x'.repeat(240)}  `);
    expect(comment).toHaveAccessibleDescription('3 characters too many: up to 255. 258 / 255');
    expect(comment).toHaveAttribute('aria-invalid', 'true');
  });

  it('when a return comment is typed, then its rule is said before anything is typed, and past 255 characters the field refuses it, also on Continue', async () => {
    const app = renderApp(PATH, financeWith());
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    const comment = await screen.findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 0 / 255',
    );
    await app.user.type(comment, 'paid twice');
    expect(comment).toHaveAccessibleDescription(
      'Up to 255 characters, kept in the order’s timeline and the audit log. 10 / 255',
    );
    await app.user.clear(comment);
    await app.user.click(comment);
    await app.user.paste('x'.repeat(600));
    expect(comment).toHaveAccessibleDescription('345 characters too many: up to 255. 600 / 255');
    expect(comment).toHaveAttribute('aria-invalid', 'true');
    await app.user.click(screen.getByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(comment).toHaveAccessibleDescription(
      'Say in a few words what happened (up to 255 characters). 600 / 255',
    );
    expect(comment).toHaveFocus();
    expect(screen.queryByRole('dialog', { name: 'Confirm the return' })).not.toBeInTheDocument();
  });
});

describe('the return’s scope', () => {
  it('when “Part” is chosen, then the amount it asks for takes the keyboard focus', async () => {
    const app = renderApp(PATH, financeWith());
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: 'Part' }));
    expect(await screen.findByLabelText(/Amount to return/)).toHaveFocus();
    await app.user.keyboard('5');
    expect(screen.getByLabelText(/Amount to return/)).toHaveValue('5');
  });
});

describe('a confirmation step and the keyboard', () => {
  it('when Continue leads to the confirmation, then the question says how to reach its button: Enter there sends nothing, Tab goes straight to the button, and Enter on it sends', async () => {
    const bff = financeWith(makeTransaction(1, { type: 'preauth', amount: '20.00' }));
    const { app, dialog } = await confirmWholeCapture(bff);
    // The amount is seen as everywhere else, and read out with its currency in words.
    const question = within(dialog).getByText(seenAs('Capture €20.00 from the customer’s card?'));
    expect(heardText(question)).toBe('Capture 20.00 euros from the customer’s card?');
    expect(question).toHaveFocus();
    expect(question).toHaveAccessibleDescription('Press Tab to reach “Capture €20.00”.');
    // Guidance for screen-reader users, not text shown to everyone.
    expect(seenText(dialog)).not.toContain('Press Tab');
    expect(seenText(dialog)).not.toContain('euros');
    // A second Enter meant for Continue sends nothing.
    await app.user.keyboard('{Enter}');
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/capture`)).toHaveLength(0);
    await app.user.tab();
    expect(within(dialog).getByRole('button', { name: 'Capture €20.00' })).toHaveFocus();
    // Back and Cancel are still there, a Shift+Tab away.
    await app.user.tab({ shift: true });
    expect(within(dialog).getByRole('button', { name: 'Back' })).toHaveFocus();
    await app.user.tab();
    await app.user.keyboard('{Enter}');
    await waitFor(() => {
      expect(bff.requestsTo('POST', `/api/transactions/${ID}/capture`)).toHaveLength(1);
    });
  });
});

describe('a follow-up sent twice in a row', () => {
  it('when the confirmation’s button is pressed twice before it shows busy (a double Enter), then one request is sent, and once it has no answer, Send again sends it once more (QA: two POSTs, two audit rows)', async () => {
    const bff = financeWith(makeTransaction(1, { type: 'preauth', amount: '20.00' }));
    const CAPTURE = `/api/transactions/${ID}/capture`;
    let refuse = true;
    bff.on('POST /api/transactions/:id/capture', (request) =>
      refuse
        ? { status: 503, body: { error: { code: 'UNAVAILABLE', message: 'busy', requestId: 'r' } } }
        : bff.ownReply(request),
    );
    const { dialog } = await confirmWholeCapture(bff);
    const send = within(dialog).getByRole('button', { name: 'Capture €20.00' });
    // Both presses land before the reply, and before React shows the button busy.
    fireEvent.click(send);
    fireEvent.click(send);
    // No answer (a 503 leaves the outcome unknown): one request went, and Send again sends it
    // again, once, under the same key.
    const again = await within(dialog).findByRole('button', { name: 'Send again' });
    expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(1);
    refuse = false;
    fireEvent.click(again);
    fireEvent.click(again);
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(2);
  });
});

describe('a follow-up that waits on a slow gateway', () => {
  /** The note with the wait the session's settings say (the fake BFF's: GATEWAY_TIMEOUT_MS 15 s). */
  const NOTE =
    /^Waiting for the gateway’s answer… Paydesk waits up to 15 s for it; do not close this window or send it again\.$/;
  /** The note when the session does not say the BFF's wait (an older instance). */
  const NOTE_UNSAID =
    /^Waiting for the gateway’s answer… Paydesk waits a few seconds for it; do not close this window or send it again\.$/;

  afterEach(() => {
    vi.useRealTimers();
  });

  /** Lets `ms` of the fake clock go by, timers firing on the way. */
  async function pass(ms: number) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  /**
   * Holds the reply to `POST path` until the returned function is called, as a BFF does while it
   * waits for the gateway; every other request is answered at once.
   */
  function holdReplyTo(bff: FakeBff, path: string): () => void {
    const { promise: held, resolve: release } = Promise.withResolvers<undefined>();
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if ((init.method ?? 'GET').toUpperCase() === 'POST' && url.endsWith(path)) await held;
      return bff.fetch(input, init);
    });
    return () => {
      release(undefined);
    };
  }

  it('when the capture’s reply takes more than 2 seconds, then the dialog says it waits for the gateway, in a polite live region, keeps open on Escape, and drops the note when the answer comes', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const bff = financeWith(makeTransaction(1, { type: 'preauth', amount: '20.00' }));
    // After its wait the BFF could not learn the outcome: the dialog stays, to send again.
    bff.on('POST /api/transactions/:id/capture', () => ({
      status: 502,
      body: {
        error: {
          code: 'GATEWAY_UNAVAILABLE',
          message: 'the gateway did not answer',
          requestId: 'r-502',
        },
      },
    }));
    const app = renderApp(PATH, bff);
    const release = holdReplyTo(bff, `/api/transactions/${ID}/capture`);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm the capture' });
    await pass(1_500);
    expect(within(dialog).queryByText(NOTE)).not.toBeInTheDocument();
    await pass(600);
    const note = within(dialog).getByText(NOTE);
    expect(note.closest('[aria-live]')).toHaveAttribute('aria-live', 'polite');
    // Nothing closes the dialog meanwhile, nor sends it again.
    await app.user.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Confirm the capture' })).toBe(dialog);
    expect(within(dialog).getByRole('button', { name: /Capture €20\.00/ })).toBeDisabled();
    release();
    expect(await within(dialog).findByText('No answer yet')).toBeInTheDocument();
    expect(within(dialog).queryByText(NOTE)).not.toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/capture`)).toHaveLength(1);
  });

  it('when creating a card reference waits on the gateway, then the note comes after 2 seconds, not before, and goes with the dialog when the answer comes', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const bff = financeWith();
    const app = renderApp(PATH, bff);
    const release = holdReplyTo(bff, `/api/transactions/${ID}/card-ref`);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Create card reference' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create a card reference' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Create card reference' }));
    await pass(1_900);
    expect(within(dialog).queryByText(NOTE)).not.toBeInTheDocument();
    await pass(200);
    expect(within(dialog).getByText(NOTE)).toBeInTheDocument();
    release();
    await waitFor(() => {
      expect(
        screen.queryByRole('dialog', { name: 'Create a card reference' }),
      ).not.toBeInTheDocument();
    });
    expect(screen.queryByText(NOTE)).not.toBeInTheDocument();
  });

  /** Confirms a void of order 900001 whose reply is held; returns the dialog and the release. */
  async function voidHeld(bff: FakeBff) {
    const app = renderApp(PATH, bff);
    const release = holdReplyTo(bff, `/api/transactions/${ID}/void`);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await app.user.type(await screen.findByLabelText(/Comment/), 'customer cancelled');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
    return { dialog: await screen.findByRole('dialog', { name: /void/i }), release };
  }

  it('when the BFF’s gateway timeout is 2.5 seconds, then the note says it waits up to 3 s', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const bff = financeWith();
    bff.gatewayTimeoutMs = 2_500;
    const { dialog, release } = await voidHeld(bff);
    await pass(2_100);
    expect(
      within(dialog).getByText(
        'Waiting for the gateway’s answer… Paydesk waits up to 3 s for it; do not close this window or send it again.',
      ),
    ).toBeInTheDocument();
    release();
    await waitFor(() => {
      expect(screen.queryByText(/Waiting for the gateway/)).not.toBeInTheDocument();
    });
  });

  it('when the session does not say the BFF’s gateway timeout (an older instance), then the note says it waits a few seconds', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const bff = financeWith();
    bff.gatewayTimeoutMs = undefined;
    const { dialog, release } = await voidHeld(bff);
    await pass(2_100);
    expect(within(dialog).getByText(NOTE_UNSAID)).toBeInTheDocument();
    expect(within(dialog).queryByText(/up to \d+ s/)).not.toBeInTheDocument();
    release();
    await waitFor(() => {
      expect(screen.queryByText(/Waiting for the gateway/)).not.toBeInTheDocument();
    });
  });
});
