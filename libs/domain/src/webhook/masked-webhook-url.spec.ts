import { maskWebhookUrl, webhookUrlHasSecrets } from './masked-webhook-url';

describe('webhook URL masking', () => {
  it.each([
    ['https://hooks.example.com/in?token=s3cr3t', 'https://hooks.example.com/in?token=****'],
    ['https://hooks.example.com/in?key=a&sig=b&v=2', 'https://hooks.example.com/in?key=****&sig=****&v=****'],
    ['https://hooks.example.com/in?s3cr3t', 'https://hooks.example.com/in?****'],
    ['https://hooks.example.com/in?=s3cr3t&a=', 'https://hooks.example.com/in?****&a=****'],
    ['https://user:pass@hooks.example.com/in', 'https://****@hooks.example.com/in'],
    ['https://apikey@hooks.example.com:8443/in', 'https://****@hooks.example.com:8443/in'],
    ['https://hooks.example.com/in#s3cr3t', 'https://hooks.example.com/in#****'],
    ['http://u:p@127.0.0.1:9000/a/b?t=1#f', 'http://****@127.0.0.1:9000/a/b?t=****#****'],
  ])('masks %s as %s', (url, masked) => {
    expect(webhookUrlHasSecrets(url)).toBe(true);
    expect(maskWebhookUrl(url)).toBe(masked);
  });

  it('shows a URL with nothing beyond scheme, host, port and path exactly as given', () => {
    for (const url of [
      'https://hooks.example.com/in',
      'http://127.0.0.1:9000/a/b/',
      'https://Example.com/x?',
    ]) {
      expect(webhookUrlHasSecrets(url)).toBe(false);
      expect(maskWebhookUrl(url)).toBe(url);
    }
  });

  it('changes nothing when masking a masked URL (old rows and new rows read the same)', () => {
    const masked = maskWebhookUrl('https://user:pw@hooks.example.com/in?token=abc&x=1#y');
    expect(maskWebhookUrl(masked)).toBe(masked);
  });

  it('never shows any part of a percent-encoded or repeated secret', () => {
    const url = 'https://hooks.example.com/in?token=a%2Fb%3Dc&token=d+e&x=%E2%9C%93';
    const masked = maskWebhookUrl(url);
    for (const secret of ['a%2Fb', '%3Dc', 'd+e', '%E2%9C%93']) expect(masked).not.toContain(secret);
    expect(masked).toBe('https://hooks.example.com/in?token=****&token=****&x=****');
  });

  it('masks a string that is not a URL whole', () => {
    expect(maskWebhookUrl('not a url ?token=abc')).toBe('****');
    expect(webhookUrlHasSecrets('not a url')).toBe(true);
  });
});
