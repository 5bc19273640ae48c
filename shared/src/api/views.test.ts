import { describe, expect, it } from 'vitest';
import { ViewCreateBodySchema, viewQueryProblems } from './views.js';

const body = (query: string, name = 'Declined EUR') => ({
  screen: 'transactions',
  name,
  role: 'support',
  query,
});

describe('saved view bodies', () => {
  it('when the query holds known list parameters with valid values, then it is accepted without its "?"', () => {
    const parsed = ViewCreateBodySchema.parse(
      body('?status=declined&currency=EUR&drift=true&sort=amount_desc&limit=25'),
    );
    expect(parsed.query).toBe('status=declined&currency=EUR&drift=true&sort=amount_desc&limit=25');
    expect(ViewCreateBodySchema.parse(body('')).query).toBe('');
  });

  it('when the query holds the follow-ups-not-made filter, then it is accepted; a bad value is named', () => {
    expect(ViewCreateBodySchema.parse(body('notMade=true&sort=created_desc')).query).toBe(
      'notMade=true&sort=created_desc',
    );
    expect(viewQueryProblems('transactions', 'notMade=yes')).toEqual([
      expect.stringContaining('notMade'),
    ]);
  });

  it('when the query names an unknown parameter, a cursor, a repeated key or a bad value, then each is named', () => {
    expect(viewQueryProblems('transactions', 'evil=1')).toEqual([
      '"evil" is not a parameter of the transactions list',
    ]);
    expect(viewQueryProblems('transactions', 'cursor=abc')).toHaveLength(1);
    expect(viewQueryProblems('transactions', 'status=approved&status=declined')).toEqual([
      'status is given more than once',
    ]);
    expect(viewQueryProblems('transactions', 'amountMin=1.234')[0]).toMatch(/^amountMin: /);
    expect(viewQueryProblems('transactions', 'constructor=x&__proto__=y')).toHaveLength(2);
    const refused = ViewCreateBodySchema.safeParse(body('limit=9999'));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['query']);
  });

  it('when the query holds a relative creation window, then it is kept as such; an unknown one or one beside fixed dates is named', () => {
    expect(viewQueryProblems('transactions', 'created=last7d&status=declined')).toEqual([]);
    for (const preset of ['today', 'last30d', 'thisMonth'])
      expect(viewQueryProblems('transactions', `created=${preset}`)).toEqual([]);
    expect(viewQueryProblems('transactions', 'created=last8d')[0]).toMatch(/^created: /);
    expect(
      viewQueryProblems('transactions', 'created=today&createdFrom=2026-01-01T00:00:00.000Z'),
    ).toEqual([
      'created: a relative window replaces createdFrom and createdTo; give one or the other',
    ]);
    expect(ViewCreateBodySchema.parse(body('?created=thisMonth')).query).toBe('created=thisMonth');
  });

  it('when the search holds a full card number, then it is refused (a view is shared with a role); an orderid or last four is not', () => {
    expect(viewQueryProblems('transactions', 'q=4111111111111111')).toEqual([
      'q: must not be a whole card number: search by its last four digits or the masked card (411111******1111)',
    ]);
    expect(viewQueryProblems('transactions', 'q=4111 1111 1111 1111')).toHaveLength(1);
    expect(viewQueryProblems('transactions', 'q=4111111111111112')).toEqual([]);
    expect(viewQueryProblems('transactions', 'q=1111')).toEqual([]);
    expect(viewQueryProblems('transactions', 'q=1000006')).toEqual([]);
  });

  it('when a card number is typed as a parameter’s name, or dotted in the search, then the refusal never repeats it (QA: the name was echoed)', () => {
    expect(viewQueryProblems('transactions', '4111111111111111=1')).toEqual([
      '"411111…1111" is not a parameter of the transactions list',
    ]);
    expect(viewQueryProblems('transactions', '4111%201111%201111%201111=1')).toEqual([
      '"411111…1111" is not a parameter of the transactions list',
    ]);
    const dotted = viewQueryProblems('transactions', 'q=4111.1111.1111.1111');
    expect(dotted).toHaveLength(1);
    expect(dotted.join()).not.toContain('4111.1111');
  });

  it('when the name is empty or longer than 60 characters, or the query longer than 1000, then it is refused', () => {
    expect(ViewCreateBodySchema.safeParse(body('', '  ')).success).toBe(false);
    expect(ViewCreateBodySchema.safeParse(body('', 'x'.repeat(61))).success).toBe(false);
    expect(ViewCreateBodySchema.safeParse(body('', 'x'.repeat(60))).success).toBe(true);
    expect(ViewCreateBodySchema.safeParse(body(`q=${'a'.repeat(999)}`)).success).toBe(false);
  });
});
