// The browser asks before a reload or tab close only while a form holds something to lose: a
// dirty dialog or one whose request is on its way; never for a clean one, nor once it is gone.
import { render, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FormDialog } from '../components/form-dialog';
import { FollowUpFrame } from '../features/transactions/components/follow-up-frame';
import { leaveRisk, useLeaveGuard, type LeaveRisk } from './use-leave-guard';

/** A `beforeunload` as the browser sends it: whether the page then asks before leaving. */
function leave(): { asks: boolean } {
  const event = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(event);
  return { asks: event.defaultPrevented };
}

describe('useLeaveGuard', () => {
  it('when set, then leaving asks and the risk is known; when it stops being set or unmounts, then not', () => {
    const { rerender, unmount } = renderHook(
      ({ risk }: { risk: LeaveRisk | null }) => {
        useLeaveGuard(risk);
      },
      { initialProps: { risk: null as LeaveRisk | null } },
    );
    expect(leave().asks).toBe(false);
    expect(leaveRisk()).toBeNull();
    rerender({ risk: 'typed' });
    expect(leave().asks).toBe(true);
    expect(leaveRisk()).toBe('typed');
    rerender({ risk: null });
    expect(leave().asks).toBe(false);
    expect(leaveRisk()).toBeNull();
    rerender({ risk: 'sending' });
    expect(leaveRisk()).toBe('sending');
    unmount();
    expect(leave().asks).toBe(false);
    expect(leaveRisk()).toBeNull();
  });
});

describe('FormDialog', () => {
  const dialog = (props: { dirty: boolean; busy?: boolean; open?: boolean }) => (
    <FormDialog
      open={props.open ?? true}
      dirty={props.dirty}
      busy={props.busy}
      onClose={() => undefined}
    >
      <p>form</p>
    </FormDialog>
  );

  it('when the form is clean, then leaving does not ask', () => {
    render(dialog({ dirty: false }));
    expect(leave().asks).toBe(false);
  });

  it('when the form is dirty, then leaving asks until it is closed', () => {
    const { rerender, unmount } = render(dialog({ dirty: true }));
    expect(leave().asks).toBe(true);
    rerender(dialog({ dirty: true, open: false }));
    expect(leave().asks).toBe(false);
    rerender(dialog({ dirty: true }));
    unmount();
    expect(leave().asks).toBe(false);
  });

  it('when its request is on its way, then leaving asks', () => {
    render(dialog({ dirty: false, busy: true }));
    expect(leave().asks).toBe(true);
  });
});

describe('FollowUpFrame', () => {
  const frame = (closeOnly: boolean) => (
    <FollowUpFrame
      title="Capture"
      what="the capture"
      currency="EUR"
      pending={false}
      error={null}
      outcomeUnknown={false}
      submitLabel="Continue"
      dirty
      closeOnly={closeOnly}
      onSubmit={() => undefined}
      onClose={() => undefined}
    >
      <p>form</p>
    </FollowUpFrame>
  );

  it('when dirty, then leaving asks; once only Close is left, then nothing can be lost and it does not', () => {
    const { rerender } = render(frame(false));
    expect(leave().asks).toBe(true);
    rerender(frame(true));
    expect(leave().asks).toBe(false);
  });
});
