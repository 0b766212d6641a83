import { type EvidenceRun, judgeEvidence } from '../../../../src/core/research/evidence-rule';
import { markupToText, pageText } from '../../../../src/core/research/evidence-text';

const RUN: EvidenceRun = {
  entities: ['Acme', 'Globex', 'Acme Asia'],
  fields: ['revenue', 'employees', 'founded'],
  aliases: { revenue: ['turnover', 'sales'] },
};

const ACME = 'https://example.com/companies/acme';
const LIST = 'https://example.com/companies';

/** A company page as sites write it: the name in title and heading, a table of figures, a footnote. */
const acmePage =
  '<html><head><title>Acme Corporation — company profile</title></head><body><h1>Acme</h1>' +
  '<table><tr><th>Field</th><th>Value</th></tr>' +
  '<tr><td>Revenue</td><td>USD 1,234,567</td></tr>' +
  '<tr><td>Employees</td><td>5,000</td></tr>' +
  '<tr><td>Founded</td><td>1999</td></tr></table>' +
  '<p>Acme\u2019s \u201cheadline\u201d turnover rose to USD\u00a01\u202f234\u202f567 in 2023.</p>' +
  '<p class="footnote">\u00b9 Globex revenue: USD 890,000 (for comparison).</p>' +
  '<script>var fake = "Acme revenue USD 9,999,999";</script></body></html>';

/** A page that lists several companies, with no one of them in its title or URL. */
const listPage =
  '<html><head><title>Company figures</title></head><body><table>' +
  '<tr><th>Company</th><th>Revenue</th><th>Employees</th></tr>' +
  '<tr><td>Acme</td><td>1,234,567</td><td>5,000</td></tr>' +
  '<tr><td>Globex</td><td>890,000</td><td>1,200</td></tr>' +
  '<tr><td>Acme Asia</td><td>77,000</td><td>300</td></tr>' +
  '</table><p>Revenue of Acme: 1,234,567. Globex revenue 5,000 (restated); Acme had revenue of 5,000 in 1999.</p>' +
  '</body></html>';

/** A plain-text report about no entity in particular. */
const plainPage = 'Annual report 2023.\nRevenue: 42,000 EUR.\nStaff: 12 employees, of whom 12 part-time.';

interface Case {
  name: string;
  page: { url: string; content: string };
  claim: { entity: string; field: string; value: string; quote?: string };
  rule?: string;
}

const acme = (field: string, value: string, quote?: string) => ({ entity: 'Acme', field, value, quote });

const CASES: Case[] = [
  // Accepted: what a careful worker writes.
  {
    name: 'a table row on the entity page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'USD 1,234,567', 'Revenue USD 1,234,567'),
  },
  {
    name: 'the number alone, quoted with its row',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '1234567', 'revenue usd 1,234,567'),
  },
  {
    name: 'different case, spacing and digit grouping',
    page: { url: ACME, content: acmePage },
    claim: acme('employees', '5 000', 'EMPLOYEES   5000'),
  },
  {
    name: 'typographic quotes and no-break spaces on the page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'USD 1,234,567', 'Acme\'s "headline" turnover rose to USD 1,234,567'),
  },
  {
    name: 'an alias STRATEGY lists for the field',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '1,234,567', 'turnover rose to USD 1 234 567'),
  },
  {
    name: 'a listing page whose quote names the entity',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '1,234,567', 'Revenue of Acme: 1,234,567'),
  },
  {
    name: 'prose with the field after the value',
    page: { url: 'https://example.com/report/initech', content: plainPage },
    claim: { entity: 'Initech', field: 'employees', value: '12', quote: 'Staff: 12 employees' },
  },
  {
    name: 'a number that appears twice, both times for the same fact',
    page: { url: 'https://example.com/report/initech', content: plainPage },
    claim: { entity: 'Initech', field: 'employees', value: '12', quote: '12 employees, of whom 12 part-time' },
  },
  {
    name: 'a value with its currency after it',
    page: { url: 'https://example.com/report/initech', content: plainPage },
    claim: { entity: 'Initech', field: 'revenue', value: '42,000 EUR', quote: 'Revenue: 42,000 EUR' },
  },
  // Refused: what a careless or hostile worker writes.
  {
    name: 'no quote at all',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '1,234,567'),
    rule: 'quote',
  },
  {
    name: 'a quote that is not on the page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '2,000,000', 'Revenue USD 2,000,000'),
    rule: 'quote',
  },
  {
    name: 'a quote from the page\u2019s script, which no reader sees',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '9,999,999', 'Acme revenue USD 9,999,999'),
    rule: 'quote',
  },
  {
    name: 'a quote of a whole page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '1,234,567', `Revenue USD 1,234,567 ${'x'.repeat(300)}`),
    rule: 'quote',
  },
  {
    name: 'the value in another row of the table (employees as revenue)',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '5,000', 'Revenue USD 1,234,567 Employees 5,000'),
    rule: 'row',
  },
  {
    name: 'the value of the row before (revenue as employees)',
    page: { url: ACME, content: acmePage },
    claim: acme('employees', '1,234,567', 'Revenue USD 1,234,567 Employees 5,000'),
    rule: 'row',
  },
  {
    name: 'a quote that names another field only',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '5,000', 'Employees 5,000'),
    rule: 'field',
  },
  {
    name: 'a footnote about another entity on the entity page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'USD 890,000', 'Globex revenue: USD 890,000'),
    rule: 'other entity',
  },
  {
    name: 'another company\u2019s row on a listing page',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '890,000', 'Acme 1,234,567 5,000 Globex 890,000'),
    rule: 'field',
  },
  {
    name: 'another company\u2019s row, with the column header quoted',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '890,000', 'Revenue Employees Acme 1,234,567 5,000 Globex 890,000'),
    rule: 'row',
  },
  {
    name: 'a name inside a longer entity name (Acme in Acme Asia)',
    page: { url: LIST, content: listPage },
    claim: acme('employees', '300', 'Revenue Employees Acme 1,234,567 5,000 Globex 890,000 1,200 Acme Asia 77,000 300'),
    rule: 'row',
  },
  {
    name: 'a listing page, the quote not naming the entity',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '5,000', 'revenue 5,000 (restated)'),
    rule: 'entity',
  },
  {
    name: 'a quote with the page’s markup in it',
    page: { url: ACME, content: acmePage },
    claim: acme('founded', '1999', '<td>Founded</td><td>1999</td>'),
  },
  {
    name: 'a listing page, a bare figure without the entity',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '890,000', 'Revenue Employees'),
    rule: 'value',
  },
  {
    name: 'a number that appears twice, for two entities: the first is Globex\u2019s',
    page: { url: LIST, content: listPage },
    claim: {
      entity: 'Globex',
      field: 'revenue',
      value: '5,000',
      quote: 'Globex revenue 5,000 (restated); Acme had revenue of 5,000',
    },
  },
  {
    name: 'a number that appears twice, for two entities: the second is Acme\u2019s',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '5,000', 'Globex revenue 5,000 (restated); Acme had revenue of 5,000'),
  },
  {
    name: 'another entity\u2019s figure quoted alone',
    page: { url: LIST, content: listPage },
    claim: acme('revenue', '5,000', 'Globex revenue 5,000 (restated)'),
    rule: 'other entity',
  },
  {
    name: 'a different currency than the page',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'EUR 1,234,567', 'Revenue USD 1,234,567'),
    rule: 'value',
  },
  {
    name: 'a part of a larger number',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '234,567', 'Revenue USD 1,234,567'),
    rule: 'value',
  },
  {
    name: 'the field\u2019s label as its value',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'Revenue', 'Revenue USD 1,234,567'),
    rule: 'label',
  },
  {
    name: 'another field\u2019s label as the value',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'employees', 'Employees 5,000'),
    rule: 'label',
  },
  {
    name: 'the entity\u2019s name as the value',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', 'ACME', 'Revenue USD 1,234,567'),
    rule: 'label',
  },
  {
    name: 'a value of punctuation only',
    page: { url: ACME, content: acmePage },
    claim: acme('revenue', '—', 'Revenue USD 1,234,567'),
    rule: 'label',
  },
  {
    name: 'a page not about the entity, quote omitting it',
    page: { url: 'https://example.com/report/2023', content: plainPage },
    claim: { entity: 'Initech', field: 'revenue', value: '42,000', quote: 'Revenue: 42,000 EUR' },
    rule: 'entity',
  },
];

describe('the evidence rule: a page and a claim, accepted or refused with the rule', () => {
  it('has the cases a reviewer would try', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(CASES.filter((c) => c.rule !== undefined).length).toBeGreaterThanOrEqual(15);
  });

  it.each(CASES)('$name', ({ page, claim, rule }) => {
    const ruling = judgeEvidence(page, claim, RUN);
    if (rule === undefined) {
      expect(ruling).toEqual({ ok: true });
    } else {
      expect(ruling).toMatchObject({ ok: false, rule });
      expect(ruling.ok === false && ruling.reason).toContain(`[${rule}]`);
    }
  });

  it('names the page and the other entity in its reasons', () => {
    const footnote = judgeEvidence(
      { url: ACME, content: acmePage },
      acme('revenue', '890,000', 'Globex revenue: USD 890,000'),
      RUN,
    );
    expect(footnote).toMatchObject({ reason: '[other entity] the quote names Globex, not Acme' });
    const missing = judgeEvidence({ url: ACME, content: acmePage }, acme('revenue', '7', 'Revenue 7'), RUN);
    expect(missing).toMatchObject({ reason: `[quote] the quote does not occur in ${ACME}` });
  });

  it('reads markup linearly: a page of half-open tags and stray brackets takes no time', () => {
    const hostile = `${'<a'.repeat(200_000)}${'a < b '.repeat(50_000)}<script>${'<'.repeat(100_000)}`;
    const started = Date.now();
    expect(pageText(hostile).length).toBeGreaterThan(0);
    expect(markupToText('<p>a &lt; b</p><p>c</p>')).toBe(' a &lt; b  c ');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
