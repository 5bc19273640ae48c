// The API's field names (`cardRefId`, `customer.zipCode`, `query.amountMin`) as staff read them,
// for a refusal that names a field the screen does not show: a form puts the server's message
// under its own field; anything left is said with the field's label, never the API's name.

/** Labels as the forms show them; a nested path is looked up whole, then by its last name. */
const LABELS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    amount: 'Amount',
    amountMin: 'Amount from',
    amountMax: 'Amount to',
    cardRefId: 'Card reference',
    client_orderid: 'Client order id',
    clientOrderId: 'Client order id',
    comment: 'Comment',
    createdFrom: 'Created from',
    createdTo: 'Created to',
    currency: 'Currency',
    currentPassword: 'Current password',
    email: 'E-mail',
    endpoint: 'Endpoint',
    endpointId: 'Endpoint',
    interval: 'Every',
    kind: 'Form',
    maxPayments: 'Charges at most',
    name: 'Name',
    newPassword: 'New password',
    orderDesc: 'Description',
    orderid: 'Orderid',
    password: 'Password',
    period: 'Period',
    q: 'Search',
    reason: 'Reason',
    reasonCode: 'Reason',
    redirectUrl: 'Return address',
    role: 'Role',
    roles: 'Roles',
    startDate: 'Start date',
    'customer.address1': 'Customer address',
    'customer.city': 'Customer city',
    'customer.country': 'Customer country',
    'customer.email': 'Customer e-mail',
    'customer.firstName': 'Customer first name',
    'customer.lastName': 'Customer last name',
    'customer.phone': 'Customer phone',
    'customer.zipCode': 'Customer postal code',
  }),
);

/** `zipCode` → 'Zip code', `redirect_url` → 'Redirect url': a name no table lists, in words. */
function inWords(name: string): string {
  const words = name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? 'A field' : `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/**
 * The staff-facing name of an API field path: `cardRefId` → 'Card reference', `roles.1` →
 * 'Roles', `query.amountMin` → 'Amount from'; a name no form shows is put in words.
 */
export function fieldLabel(path: string): string {
  const names = path
    .split('.')
    .filter((name) => name !== '' && !/^\d+$/.test(name))
    .filter((name, index) => index > 0 || !['body', 'query', 'params'].includes(name));
  const whole = names.join('.');
  const last = names.at(-1) ?? '';
  return LABELS.get(whole) ?? LABELS.get(last) ?? inWords(last);
}

/** One field's refusal as a sentence: ('cardRefId', 'is unknown') → 'Card reference: is unknown.' */
export function fieldSentence(path: string, message: string): string {
  const text = message.trim();
  return `${fieldLabel(path)}: ${text}${/[.!?…]$/.test(text) ? '' : '.'}`;
}

/**
 * A server message that starts with one of its fields' API paths ("cardRefId: the gateway does
 * not know …") with that path said as its label ("Card reference: the gateway does not know …").
 */
export function withFieldLabels(message: string, paths: readonly string[]): string {
  for (const path of paths) {
    if (message.startsWith(`${path}: `))
      return `${fieldLabel(path)}: ${message.slice(path.length + 2)}`;
  }
  return message;
}
