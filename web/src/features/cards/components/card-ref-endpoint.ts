// A card reference belongs to the endpoint it was made on: the gateway charges it only there (or
// through a group holding that endpoint), in what that endpoint takes. A form that charges a
// reference (a rebill, a subscription) and knows it (the Cards list) and the configured endpoints
// (the session's settings) says a mismatch at its field, before the confirm step, rather than
// after it from the BFF's refusal.
import type { CardRefSummary, EndpointChoice } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useContext, useEffect, useState } from 'react';
import type { FieldError, FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import { SAID_ERROR } from '../../../components/money-fields';
import { SessionContext } from '../../auth/components/session-context';
import { CARD_REF_LIST_LIMIT, cardRefListQueryOptions } from '../api/cards';

/**
 * What staff are told to do with the reference, in the BFF's words for the same refusal
 * (payments/rebills.ts, subscriptions.ts): "… rebill it in USD", "… set up the subscription in USD".
 */
export type CardRefAction = 'rebill it' | 'set up the subscription';

/**
 * What a form on a card reference gives its resolver (react-hook-form's `context`): the
 * references Paydesk knows (the Cards list) and the configured endpoints (the session's settings);
 * either absent, nothing is checked.
 */
export interface CardRefFormContext {
  cardRefs?: readonly CardRefSummary[] | undefined;
  endpoints?: readonly EndpointChoice[] | undefined;
}

/**
 * The form's `CardRefFormContext`: the Cards screen's list (the same query, usually cached
 * already) and the session's configured endpoints. The session from the context rather than
 * useSession(): absent from an older BFF instance, then not checked.
 */
export function useCardRefFormContext(): CardRefFormContext {
  const cardRefs = useQuery(cardRefListQueryOptions(CARD_REF_LIST_LIMIT)).data?.items;
  const endpoints = useContext(SessionContext)?.settings?.endpoints;
  return { cardRefs, endpoints };
}

/** The reference the list knows by the id typed (or given), if any. */
export function knownRef(
  refs: readonly CardRefSummary[] | undefined,
  cardRefId: string,
): CardRefSummary | undefined {
  const id = cardRefId.trim();
  return id === '' ? undefined : refs?.find((ref) => ref.cardRefId === id);
}

/**
 * Where a charge on a card reference goes, for its confirm step: the endpoint or group chosen, or
 * (none chosen) the known reference's own endpoint, as the BFF sends it: ` on endpoint 1002`,
 * ` through endpoint group 2001`; '' when not known (an unknown reference, the currency's default).
 */
export function chargeTargetText(
  chosen: string | undefined,
  ref: CardRefSummary | undefined,
  endpoints: readonly EndpointChoice[] | undefined,
): string {
  const target = chosen ?? ref?.endpointId;
  if (target === undefined) return '';
  const group = endpoints?.some((e) => e.kind === 'group' && e.id === target) === true;
  return group ? ` through endpoint group ${target}` : ` on endpoint ${target}`;
}

/** What the empty endpoint choice means for a known reference: its own endpoint. */
export function refEndpointChoice(ref: CardRefSummary | undefined): string | undefined {
  return ref === undefined ? undefined : `The card reference’s endpoint (${ref.endpointId})`;
}

/**
 * A known reference is charged in its own currency unless the user typed another: the form's
 * currency follows the reference (given, typed, or once the list comes) until the user changes
 * it. `resetField` is the form's; the returned function is the currency field's `onChange`.
 */
export function useCurrencyFollowingRef(
  ref: CardRefSummary | undefined,
  resetField: (name: 'currency', options: { defaultValue: string }) => void,
): () => void {
  const [chosen, setChosen] = useState(false);
  const refCurrency = ref?.currency;
  useEffect(() => {
    if (refCurrency !== undefined && !chosen) resetField('currency', { defaultValue: refCurrency });
  }, [refCurrency, chosen, resetField]);
  return useCallback(() => {
    setChosen(true);
  }, []);
}

/**
 * Said of a reference typed that no order Paydesk knows carries (QA: a mistyped one reached the
 * confirm step, refused only then by the gateway), when the Cards list is whole (under its limit),
 * so that its absence means something. A warning, not a refusal: a reference made elsewhere (the
 * storefront's) can still be charged. Undefined when the reference is known, or the list is not
 * (yet) read or was cut at its limit.
 */
export function unseenRefText(
  refs: readonly CardRefSummary[] | undefined,
  cardRefId: string,
): string | undefined {
  const id = cardRefId.trim();
  if (id === '' || refs === undefined || refs.length >= CARD_REF_LIST_LIMIT) return undefined;
  if (refs.some((ref) => ref.cardRefId === id)) return undefined;
  return `No order Paydesk knows carries card reference ${id}: check it. The gateway refuses it if it stores no card under it.`;
}

/** Under the reference's field: "Made on endpoint 1001 · EUR". */
export function madeOnText(ref: CardRefSummary): string {
  return `Made on endpoint ${ref.endpointId} · ${ref.currency}`;
}

/** The currencies the reference's endpoint takes, when the configuration says. */
function currenciesOf(
  ref: CardRefSummary,
  endpoints: readonly EndpointChoice[],
): readonly string[] | null {
  const home = endpoints.find((e) => e.kind === 'endpoint' && e.id === ref.endpointId);
  return home?.currencies !== undefined && home.currencies !== null && home.currencies.length > 0
    ? home.currencies
    : null;
}

/**
 * What is refused of a charge (a rebill, a subscription) of the known reference `ref` before it
 * is sent, as the BFF would refuse it, advising `action`: a configured plain endpoint other than the reference's (on `endpointId`), or, when
 * the rebill goes to the reference's endpoint (none chosen, or that one), a currency that endpoint
 * does not take (on `currency`). A group is not checked: the configuration does not say which
 * endpoints it holds, so the gateway decides. Nothing is refused without the configuration
 * (an older BFF instance) or for a reference the list does not hold.
 */
export function cardRefRefusals(
  ref: CardRefSummary | undefined,
  values: { endpointId: string; currency: string },
  endpoints: readonly EndpointChoice[] | undefined,
  action: CardRefAction,
): { endpointId?: string; currency?: string } {
  if (ref === undefined || endpoints === undefined) return {};
  const chosen = values.endpointId.trim();
  const takes = currenciesOf(ref, endpoints);
  const madeOn = `Card reference ${ref.cardRefId} was made on endpoint ${ref.endpointId}${
    takes === null ? '' : `, which takes ${takes.join(', ')}`
  }`;
  const inCurrency = takes === null ? '' : ` and ${action} in ${takes.join(' or ')}`;
  if (chosen !== '' && chosen !== ref.endpointId) {
    const plain = endpoints.some((e) => e.kind === 'endpoint' && e.id === chosen);
    const homeConfigured = endpoints.some((e) => e.kind === 'endpoint' && e.id === ref.endpointId);
    return plain && homeConfigured
      ? {
          endpointId: `${madeOn}, and the gateway charges it only there: choose the card reference’s endpoint${inCurrency}.`,
        }
      : {};
  }
  const code = values.currency.trim().toUpperCase();
  if (takes !== null && /^[A-Z]{3}$/.test(code) && !takes.includes(code)) {
    return { currency: `${madeOn}: ${action} in ${takes.join(' or ')}.` };
  }
  return {};
}

/**
 * A form's resolver, then the card reference's endpoint and currency (`cardRefRefusals`, from the
 * form's `CardRefFormContext`), said in the same pass; a field's own rule is said before them (a
 * currency that is no code is refused as such).
 */
export function withCardRefRefusals<
  TInput extends FieldValues & { cardRefId: string; currency: string; endpointId: string },
  TContext,
  TOutput,
>(
  resolver: Resolver<TInput, TContext, TOutput>,
  action: CardRefAction,
): Resolver<TInput, TContext & CardRefFormContext, TOutput> {
  return async (values, context, options) => {
    const result = await resolver(values, context, options);
    const refused = cardRefRefusals(
      knownRef(context?.cardRefs, values.cardRefId),
      values,
      context?.endpoints,
      action,
    );
    const said = (message: string): FieldError => ({ type: SAID_ERROR, message });
    const errors = {
      ...(refused.endpointId === undefined ? {} : { endpointId: said(refused.endpointId) }),
      ...(refused.currency === undefined ? {} : { currency: said(refused.currency) }),
    };
    if (Object.keys(errors).length === 0) return result;
    // (`endpointId` and `currency` are fields of every TInput; TypeScript cannot see it through
    // the generic errors.)
    return { values: {}, errors: { ...errors, ...result.errors } as FieldErrors<TInput> };
  };
}
