// Signing throughput of the protocol library next to the oauth-1.0a npm package (HMAC-SHA1, same
// inputs) and next to bare crypto.sign (RSA-SHA256, the physical limit).
// Run (after `npm test` or a build): `pnpm --filter @paydesk/test bench:protocol`.
import { createHmac, createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlValue, oauthBaseString, signOAuth } from '@paydesk/shared/protocol';
import OAuth from 'oauth-1.0a';
import { Bench } from 'tinybench';

const here = dirname(fileURLToPath(import.meta.url));
const conformance =
  process.env.PAYDESK_CONFORMANCE_DIR ?? resolve(here, '../../../shared/conformance');
const privateKeyPem = readFileSync(
  resolve(conformance, 'merchant-test-rsa-2048.pkcs1.pem'),
  'utf8',
);

const url = 'https://sandbox.gateway.example/paynet/api/v2/payout/1001';
const controlKey = 'B17F59B4-A7DC-41B4-8FF9-37D986B43D20';
const consumerKey = 'paydesk-demo';
const body: [string, string][] = [
  ['client_orderid', 'po-0001'],
  ['amount', '1234.56'],
  ['currency', 'EUR'],
  ['order_desc', 'Payout to café owner'],
  ['ipaddress', '203.0.113.7'],
  ['account_number', 'DE89370400440532013000'],
  ['bank_name', 'Example Bank'],
  ['bank_bic', 'COBADEFFXXX'],
];

const library = new OAuth({
  consumer: { key: consumerKey, secret: controlKey },
  signature_method: 'HMAC-SHA1',
  hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
});
const data = Object.fromEntries(body);

const rsaKey = createPrivateKey(privateKeyPem);
const fixedBase = oauthBaseString('POST', url, [...body, ['oauth_consumer_key', consumerKey]]);

const groups: [string, [string, () => unknown][]][] = [
  [
    'control value (spec 5.1)',
    [
      [
        'paydesk controlValue(sale)',
        () =>
          controlValue(
            'sale',
            {
              endpointId: '1001',
              client_orderid: 'ord-1',
              amount: '10.42',
              email: 'john@example.com',
            },
            controlKey,
          ),
      ],
    ],
  ],
  [
    'OAuth HMAC-SHA1 signing, Authorization header included',
    [
      [
        'paydesk signOAuth',
        () =>
          signOAuth({
            url,
            body,
            consumerKey,
            signatureMethod: 'HMAC-SHA1',
            merchantControlKey: controlKey,
          }),
      ],
      [
        'oauth-1.0a authorize + toHeader',
        () => library.toHeader(library.authorize({ url, method: 'POST', data })),
      ],
    ],
  ],
  [
    'OAuth RSA-SHA256 signing (2048-bit key)',
    [
      [
        'paydesk signOAuth',
        () => signOAuth({ url, body, consumerKey, signatureMethod: 'RSA-SHA256', privateKeyPem }),
      ],
      [
        'bare crypto.sign over a base string',
        () => sign('sha256', Buffer.from(fixedBase, 'utf8'), rsaKey),
      ],
    ],
  ],
];

for (const [title, tasks] of groups) {
  const bench = new Bench({ time: 2000, warmupTime: 300 });
  for (const [name, fn] of tasks) bench.add(name, fn);
  await bench.run();
  console.log(`\n${title}`);
  console.table(bench.table());
}
