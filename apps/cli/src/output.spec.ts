import { render } from './output';

describe('render', () => {
  const plans = [
    { id: 'a1', name: 'trial', monthlyApiHits: 10000, maxSessions: 3 },
    { id: 'b22', name: 'pro', monthlyApiHits: 500000, maxSessions: 10 },
  ];

  it('prints the JSON scripts rely on when asked for JSON', () => {
    expect(JSON.parse(render(plans, true))).toEqual(plans);
  });

  it('prints a list as aligned columns with a header', () => {
    expect(render(plans, false)).toBe(
      [
        'ID   NAME   MONTHLYAPIHITS  MAXSESSIONS',
        'a1   trial  10000           3',
        'b22  pro    500000          10',
        '',
      ].join('\n'),
    );
  });

  it('prints one object as fields, nested objects and lists indented, nulls as "-"', () => {
    const report = {
      account: { id: 'x', name: 'acme' },
      note: null,
      sessions: [],
      recentFailures: [{ code: 'not_on_whatsapp', to: null }],
    };
    expect(render(report, false)).toBe(
      [
        'note  -',
        '',
        'account:',
        '  id    x',
        '  name  acme',
        '',
        'sessions:',
        '  (none)',
        '',
        'recentFailures:',
        '  CODE             TO',
        '  not_on_whatsapp  -',
        '',
      ].join('\n'),
    );
  });
});
