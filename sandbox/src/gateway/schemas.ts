// Request schemas per operation (fields.md). The router validates with them and the OpenAPI
// document is generated from them.
import { z } from 'zod';
import { f } from './fields.js';

const opt = <T extends z.ZodType>(schema: T) => schema.optional();

const customer = {
  address1: f.text(50),
  city: f.text(50),
  zip_code: f.text(10),
  country: f.country(),
  phone: f.phone(),
  email: f.email(),
  ipaddress: f.ip(),
};

const card = {
  credit_card_number: f.cardNumber(),
  card_printed_name: f.text(128),
  expire_month: f.expireMonth(),
  expire_year: f.expireYear(),
  cvv2: f.cvv2(),
};

const browser = {
  browser_accept_header: opt(f.text(2048)),
  browser_java_enabled: opt(f.text(5)),
  browser_javascript_enabled: opt(f.text(5)),
  browser_language: opt(f.text(8)),
  browser_color_depth: opt(f.text(2)),
  browser_screen_height: opt(f.text(6)),
  browser_screen_width: opt(f.text(6)),
  browser_tz: opt(f.text(5)),
  browser_user_agent: opt(f.text(2048)),
};

const saleOptional = {
  first_name: opt(f.text(50)),
  last_name: opt(f.text(50)),
  state: opt(f.text(50)),
  birthday: opt(f.date()),
  cell_phone: opt(f.phone()),
  site_url: opt(f.url()),
  server_callback_url: opt(f.url()),
  ...browser,
};

const orderBase = {
  client_orderid: f.clientOrderId(),
  order_desc: f.text(1024),
  amount: f.amount(),
  currency: f.currency(),
};

export const saleSchema = z.object({
  ...orderBase,
  ...customer,
  ...card,
  redirect_url: f.url(),
  control: f.control(),
  ...saleOptional,
});

export const saleFormSchema = z.object({
  ...orderBase,
  ...customer,
  redirect_url: f.url(),
  control: f.control(),
  ...saleOptional,
});

const verificationOptional = {
  phone: opt(f.phone()),
  first_name: opt(f.text(50)),
  last_name: opt(f.text(50)),
  server_callback_url: opt(f.url()),
};

const verificationCustomer = {
  client_orderid: f.clientOrderId(),
  order_desc: f.text(1024),
  address1: f.text(50),
  city: f.text(50),
  zip_code: f.text(10),
  country: f.country(),
  email: f.email(),
  ipaddress: f.ip(),
};

export const accountVerificationSchema = z.object({
  ...verificationCustomer,
  ...card,
  control: f.control(),
  ...verificationOptional,
  redirect_url: opt(f.url()),
});

export const accountVerificationFormSchema = z.object({
  ...verificationCustomer,
  redirect_url: f.url(),
  control: f.control(),
  ...verificationOptional,
});

const reference = {
  login: f.login(),
  client_orderid: f.clientOrderId(),
  orderid: f.orderId(),
};

export interface Problem {
  name: string;
  message: string;
}

type Raw = Record<string, string | undefined>;

// Cross-field rules run on the raw fields beside the schema, so that every bad field is named in
// one reply (zod skips refinements of an object whose fields already failed).

/** amount and currency travel together or not at all. */
export function amountWithCurrency(value: Raw): Problem[] {
  if ((value.amount === undefined) !== (value.currency === undefined)) {
    const missing = value.amount === undefined ? 'amount' : 'currency';
    return [{ name: missing, message: 'is required together with amount and currency' }];
  }
  return [];
}

export const captureSchema = z.object({
  ...reference,
  amount: opt(f.amount()),
  currency: opt(f.currency()),
  control: f.control(),
});

export const returnSchema = z.object({
  ...reference,
  comment: f.text(255),
  amount: opt(f.amount()),
  currency: opt(f.currency()),
  control: f.control(),
});

export const voidSchema = z.object({ ...reference, comment: f.text(255), control: f.control() });

export const statusSchema = z.object({
  login: f.login(),
  client_orderid: f.clientOrderId(),
  orderid: opt(f.orderId()),
  'by-request-sn': opt(f.text(64)),
  control: f.control(),
});

export const createCardRefSchema = z.object({ ...reference, control: f.control() });
export const createCardRefV4Schema = z.object({ ...reference });

export const getCardInfoSchema = z.object({
  login: f.login(),
  cardrefid: f.text(64),
  control: f.control(),
});

export const makeRebillSchema = z.object({
  login: f.login(),
  client_orderid: f.clientOrderId(),
  cardrefid: f.text(64),
  amount: f.amount(),
  currency: f.currency(),
  order_desc: f.text(1024),
  ipaddress: f.ip(),
  cvv2: opt(f.cvv2()),
  comment: opt(f.text(255)),
  server_callback_url: opt(f.url()),
  control: f.control(),
});

const upload = {
  login: f.login(),
  'client-order-id': f.clientOrderId(),
  orderid: f.orderId(),
  control: f.control(),
};

export const uploadCresSchema = z.object({
  ...upload,
  cres: f
    .text(8192)
    .meta({ description: 'Base64 of the CRes JSON; transStatus Y approves, N declines' }),
});
export const uploadMethodSchema = z.object({
  ...upload,
  threeDSCompInd: f.oneOf(['Y', 'N', 'U']),
  ...browser,
});
export const uploadParesSchema = z.object({ ...upload, PaRes: f.text(16384) });

const destination = {
  credit_card_number: opt(f.cardNumber()),
  'destination-card-no': opt(f.cardNumber()),
  card_printed_name: opt(f.text(128)),
  expire_month: opt(f.expireMonth()),
  expire_year: opt(f.expireYear()),
  account_number: opt(f.text(34)),
  bank_name: opt(f.text(128)),
  bank_bic: opt(f.text(11)),
  ewallet_type: opt(f.text(32)),
  ewallet_id: opt(f.text(128)),
  phone: opt(f.phone()),
  fps_bank_id: opt(f.text(32)),
};

/** The destination kind the fields describe. */
export function destinationKind(v: Raw): 'card' | 'bank' | 'ewallet' | 'phone' | undefined {
  if (v.credit_card_number !== undefined || v['destination-card-no'] !== undefined) return 'card';
  if (v.account_number !== undefined) return 'bank';
  if (v.ewallet_id !== undefined || v.ewallet_type !== undefined) return 'ewallet';
  if (v.phone !== undefined || v.fps_bank_id !== undefined) return 'phone';
  return undefined;
}

/** One destination, complete. */
export function oneDestination(v: Raw): Problem[] {
  const required: Record<string, readonly string[]> = {
    card: ['card_printed_name', 'expire_month', 'expire_year'],
    bank: ['account_number', 'bank_name', 'bank_bic'],
    ewallet: ['ewallet_type', 'ewallet_id'],
    phone: ['phone', 'fps_bank_id'],
  };
  const kind = destinationKind(v);
  if (kind === undefined) {
    return [
      {
        name: 'destination',
        message:
          'is required: a card (credit_card_number or destination-card-no), a bank account (account_number), an ewallet (ewallet_id) or a phone (phone, fps_bank_id)',
      },
    ];
  }
  return (required[kind] ?? [])
    .filter((name) => v[name] === undefined)
    .map((name) => ({ name, message: `is required for a ${kind} destination` }));
}

export const payoutSchema = z.object({
  ...orderBase,
  ipaddress: f.ip(),
  ...destination,
  first_name: opt(f.text(50)),
  last_name: opt(f.text(50)),
  server_callback_url: opt(f.url()),
});

export const payoutPaySchema = z.object({ ...reference });

export const payoutFormSchema = z.object({
  ...orderBase,
  redirect_url: f.url(),
  ipaddress: opt(f.ip()),
  server_callback_url: opt(f.url()),
});

export const recurringSchema = z.object({
  ...orderBase,
  period: f.oneOf(['day', 'week', 'month']),
  interval: f.intRange(1, 365),
  email: f.email(),
  ipaddress: f.ip(),
  cardrefid: opt(f.text(64)),
  credit_card_number: opt(f.cardNumber()),
  card_printed_name: opt(f.text(128)),
  expire_month: opt(f.expireMonth()),
  expire_year: opt(f.expireYear()),
  cvv2: opt(f.cvv2()),
  start_date: opt(f.isoDate()),
  max_payments: opt(f.intRange(1, 10000)),
  first_name: opt(f.text(50)),
  last_name: opt(f.text(50)),
  server_callback_url: opt(f.url()),
});

/** Recurring payments charge either a card reference or the card given. */
export function cardOrCardRef(v: Raw): Problem[] {
  if (v.cardrefid !== undefined) return [];
  return ['credit_card_number', 'card_printed_name', 'expire_month', 'expire_year']
    .filter((name) => v[name] === undefined)
    .map((name) => ({ name, message: 'is required unless cardrefid is given' }));
}

export const panEligibilitySchema = z.object({
  'client-order-id': f.clientOrderId(),
  'sending-card-ref-id': f.text(64),
});

export const transferSchema = z.object({
  ...orderBase,
  ipaddress: f.ip(),
  ...card,
  'destination-card-no': f.cardNumber(),
  redirect_url: f.url(),
  deposit2card: opt(f.oneOf(['true', 'false'])),
  card_recurring_payment_id: opt(f.text(64)),
  destination_card_recurring_payment_id: opt(f.text(64)),
  server_callback_url: opt(f.url()),
});

export const transferByRefSchema = z.object({
  ...orderBase,
  ipaddress: f.ip(),
  'source-card-ref-id': f.text(64),
  'destination-card-ref-id': f.text(64),
  server_callback_url: opt(f.url()),
});
