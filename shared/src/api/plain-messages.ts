import type { z } from 'zod';

/**
 * zod's default messages ("Invalid input: expected string, received undefined", "Too small:
 * expected string to have >=3 characters") said in the API's own words: a rule after the field's
 * name ("amount: is required", "reason: must be at least 3 characters"), as every schema's own
 * messages are. Installed once for every schema by common.ts (`z.config`); a message a schema
 * gives itself always wins, so this only speaks where a schema is silent.
 *
 * The value itself is never repeated in a message (a card number typed into the wrong field must
 * not come back in a reply or a log); only its kind is named.
 */
export function plainMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return invalidType(issue.expected, issue.input);
    case 'invalid_value':
      if (issue.input === undefined)
        return `is required: one of ${issue.values.map(literal).join(', ')}`;
      return issue.values.length === 1
        ? `must be ${literal(issue.values[0])}`
        : `must be one of: ${issue.values.map(literal).join(', ')}`;
    case 'too_small':
      return tooSmall(issue.origin, issue.minimum, issue.inclusive !== false, issue.exact === true);
    case 'too_big':
      return tooBig(issue.origin, issue.maximum, issue.inclusive !== false, issue.exact === true);
    case 'invalid_format':
      return invalidFormat(issue);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_union': {
      // A discriminated union's tag names its choices; a plain union has none to name.
      const options: unknown = 'options' in issue ? issue.options : undefined;
      return Array.isArray(options) && options.length > 0
        ? `must be one of: ${options.map(literal).join(', ')}`
        : 'is not one of the accepted forms';
    }
    case 'invalid_key':
      return 'holds a name that is not accepted';
    case 'invalid_element':
      return 'holds a value that is not accepted';
    case 'custom':
      return 'is not valid';
    default:
      // unrecognized_keys: the BFF names each unknown field itself (errors.ts `fieldErrors`).
      return undefined;
  }
}

/** What a JSON value is, in words: "a number", "text", "a list". Never the value itself. */
function kindOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  switch (typeof input) {
    case 'string':
      return 'text';
    case 'number':
      return Number.isNaN(input) ? 'not a number' : 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object';
    default:
      return typeof input;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'text (a JSON string)',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list (a JSON array)',
  object: 'an object (JSON {…})',
  null: 'null',
};

function invalidType(expected: string, input: unknown): string {
  if (input === undefined) return 'is required';
  const wanted = EXPECTED[expected] ?? expected;
  // `z.number().int()` given 1.5, or a query's `?page=abc`: the kind is right or unknowable.
  if (expected === 'int' && typeof input === 'number' && Number.isFinite(input)) {
    return 'must be a whole number';
  }
  if (typeof input === 'number' && Number.isNaN(input)) return `must be ${wanted}`;
  // JSON's 1e400 arrives as Infinity: a number, but none any field can hold.
  if (typeof input === 'number' && !Number.isFinite(input)) return 'is too large a number';
  return `must be ${wanted}, not ${kindOf(input)}`;
}

function tooSmall(
  origin: string,
  minimum: number | bigint,
  inclusive: boolean,
  exact: boolean,
): string {
  const n = String(minimum);
  switch (origin) {
    case 'string':
      if (exact) return `must be exactly ${count(n, 'character')}`;
      return minimum === 1 ? 'must not be empty' : `must be at least ${count(n, 'character')}`;
    case 'array':
    case 'set':
      if (exact) return `must have exactly ${count(n, 'item')}`;
      return minimum === 1 ? 'must not be empty' : `must have at least ${count(n, 'item')}`;
    default:
      return inclusive ? `must be at least ${n}` : `must be greater than ${n}`;
  }
}

function tooBig(
  origin: string,
  maximum: number | bigint,
  inclusive: boolean,
  exact: boolean,
): string {
  const n = String(maximum);
  switch (origin) {
    case 'string':
      return exact
        ? `must be exactly ${count(n, 'character')}`
        : `must be at most ${count(n, 'character')}`;
    case 'array':
    case 'set':
      return exact
        ? `must have exactly ${count(n, 'item')}`
        : `must have at most ${count(n, 'item')}`;
    default:
      return inclusive ? `must be at most ${n}` : `must be less than ${n}`;
  }
}

const FORMAT: Record<string, string> = {
  email: 'must be an e-mail address, e.g. name@example.com',
  datetime: 'must be a date and time in ISO 8601, in UTC, e.g. 2026-11-28T09:30:00Z',
  date: 'must be a date as YYYY-MM-DD, e.g. 2026-11-28',
  time: 'must be a time as HH:MM, e.g. 09:30',
  uuid: 'must be a UUID, e.g. 3f2b8c1e-…',
  url: 'must be a URL, e.g. https://shop.example/return',
};

function invalidFormat(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidStringFormat>): string {
  switch (issue.format) {
    case 'starts_with':
      return `must start with "${String(issue.prefix)}"`;
    case 'ends_with':
      return `must end with "${String(issue.suffix)}"`;
    case 'includes':
      return `must include "${String(issue.includes)}"`;
    case 'regex':
      return issue.pattern === undefined
        ? 'is not in the accepted form'
        : `must match ${issue.pattern}`;
    default:
      return FORMAT[issue.format] ?? `is not in the accepted form (${issue.format})`;
  }
}

function count(n: string, noun: string): string {
  return `${n} ${noun}${n === '1' ? '' : 's'}`;
}

function literal(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}
