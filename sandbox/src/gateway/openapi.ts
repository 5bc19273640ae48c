// GET /paynet/openapi.json: OpenAPI 3.1 of the gateway as the sandbox implements it, generated
// from the zod schemas that validate the requests.
import { operations } from '@paydesk/shared/protocol';
import { z } from 'zod';
import { handlers } from './handlers.js';

const str = z.string();
const replyBase = { type: str, 'serial-number': str };
const withOrder = { ...replyBase, 'merchant-order-id': str, 'paynet-order-id': str };

const replies = {
  AsyncResponse: z
    .object({ ...withOrder, type: z.literal('async-response') })
    .meta({ description: 'Acknowledged; the outcome follows by status or callback' }),
  AsyncCheckoutFormRedirect: z.object({
    ...withOrder,
    type: z.literal('async-form-response'),
    'redirect-url': str,
  }),
  CardRefAsyncResponse: z.object({
    ...withOrder,
    type: z.literal('create-card-ref-response'),
    'card-ref-id': str,
    status: str,
  }),
  CardInfoAsyncResponse: z.object({
    ...replyBase,
    type: z.literal('get-card-info-response'),
    'card-printed-name': str,
    'expire-month': str,
    'expire-year': str,
    bin: str,
    'last-four-digits': str,
    'card-type': str,
    'masked-number': str,
  }),
  StatusResponse: z.object({
    ...withOrder,
    type: z.literal('status-response'),
    status: z.enum(['processing', 'approved', 'declined', 'error', 'filtered']),
    'transaction-type': str,
    'last-operation': str,
    'order-stage': str,
    amount: str,
    currency: str,
    'captured-amount': str,
    'returned-amount': str,
    operations: str.meta({
      description: 'JSON array of {serial-number, type, amount, status, processing-date}',
    }),
    'processing-date': str,
    bin: str.optional(),
    'last-four-digits': str.optional(),
    'card-type': str.optional(),
    'card-exp-month': str.optional(),
    'card-exp-year': str.optional(),
    'cardholder-name': str.optional(),
    email: str.optional(),
    'first-name': str.optional(),
    'last-name': str.optional(),
    'card-ref-id': str.optional(),
    'recurring-payment-id': str.optional(),
    'redirect-to': str.optional(),
    html: str.optional(),
    'error-message': str.optional(),
    'error-code': str.optional(),
  }),
  CreateRecurringPaymentResponse: z.object({
    ...replyBase,
    type: z.literal('async-response'),
    'merchant-order-id': str,
    'recurring-payment-id': str,
    status: str,
  }),
  ValidationErrorResponse: z.object({
    ...replyBase,
    type: z.literal('validation-error'),
    'error-message': str,
    'error-code': z.literal('VALIDATION_FAILED'),
    fields: z.array(z.object({ name: str, message: str })),
  }),
  ErrorResponse: z.object({
    ...replyBase,
    type: z.literal('error'),
    'error-message': str,
    'error-code': z.enum([
      'AUTHENTICATION_FAILED',
      'NOT_FOUND',
      'INVALID_STATE',
      'NOT_ACCEPTABLE',
      'INTERNAL',
    ]),
  }),
};

// The v4 card-ref reply has the v2 reply's shape.
const REPLY_OF: Record<string, keyof typeof replies> = {
  CardRefV4AsyncResponse: 'CardRefAsyncResponse',
};

function schemaOf(value: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(value, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  delete json.$schema;
  return json;
}

const content = (ref: string) => ({
  'application/vnd.pay+json': { schema: { $ref: `#/components/schemas/${ref}` } },
});

export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(replies)) schemas[name] = schemaOf(schema);
  for (const op of operations) {
    const handler = handlers[op.name];
    if (!handler) continue;
    schemas[op.requestType] = schemaOf(handler.schema);
    const replyName =
      REPLY_OF[op.replyType] ??
      (op.replyType in replies ? (op.replyType as keyof typeof replies) : 'AsyncResponse');
    const security =
      op.auth.scheme === 'control'
        ? []
        : [{ [op.auth.method === 'HMAC-SHA1' ? 'oauthHmacSha1' : 'oauthRsaSha256']: [] }];
    const authNote =
      op.auth.scheme === 'control'
        ? `Authentication: control = sha1(${op.auth.formula.join(' + ')} + merchant control key), amount in minor units.`
        : `Authentication: OAuth 1.0a ${op.auth.method} in the Authorization header.`;
    paths[op.path] = {
      post: {
        operationId: op.name,
        summary: handler.summary,
        description: `${authNote} RequestOperation ${op.requestOperation}.`,
        'x-request-operation': op.requestOperation,
        security,
        parameters: [
          {
            name: 'endpointId',
            in: 'path',
            required: true,
            schema: { type: 'integer', format: 'int64' },
            description: 'Endpoint or endpoint group id',
          },
          {
            name: 'Accept',
            in: 'header',
            required: true,
            schema: { type: 'string', const: 'application/vnd.pay+json' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: { $ref: `#/components/schemas/${op.requestType}` },
            },
          },
        },
        responses: {
          '200': { description: op.replyType, content: content(replyName) },
          '400': {
            description: 'Validation error naming every bad field',
            content: content('ValidationErrorResponse'),
          },
          '401': {
            description: 'Bad or missing control or OAuth signature',
            content: content('ErrorResponse'),
          },
          '404': {
            description: 'Unknown endpoint, order or card reference',
            content: content('ErrorResponse'),
          },
          '406': {
            description: 'Accept header missing or not application/vnd.pay+json',
            content: content('ErrorResponse'),
          },
          '409': {
            description: 'The order state does not allow the operation',
            content: content('ErrorResponse'),
          },
          '500': { description: 'Server error', content: content('ErrorResponse') },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment processing API (Paydesk sandbox)',
      version: 'dev',
      description:
        'The gateway API as the Paydesk sandbox implements it (spec/payment-api.md, spec/fields.md, design §3-4).',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        oauthHmacSha1: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'OAuth 1.0a HMAC-SHA1, key = control key + "&"',
        },
        oauthRsaSha256: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'OAuth 1.0a RSA-SHA256 with the registered public key',
        },
      },
    },
  };
}
