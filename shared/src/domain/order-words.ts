/**
 * Stages whose gateway codes read badly to staff, in the words the screens use for them (the
 * order's chips: 'Partly returned', 'Hold released'; a payout's money out: 'Paid out').
 */
const STAGE_WORDS: ReadonlyMap<string, string> = new Map([
  ['partially_returned', 'partly returned'],
  ['hold_cancelled', 'hold released'],
  ['paid', 'paid out'],
]);

/** An order's stage in words: 'partly returned', 'paid out', 'captured' ('form pending'). */
export function stageWords(stage: string): string {
  return STAGE_WORDS.get(stage) ?? stage.replace(/_/g, ' ');
}

/**
 * An order's status and stage in words, within a sentence or beside an order number: 'declined',
 * 'approved, partly returned', 'approved, paid out'. A stage that repeats the status is said once.
 * (It was 'approved (partially returned)', which nested in brackets: "order 1000331 (approved
 * (paid))".)
 */
export function orderStateWords(status: string, stage: string | null): string {
  const said = status.replace(/_/g, ' ');
  return stage === null || stage === status ? said : `${said}, ${stageWords(stage)}`;
}
