import { brokerageReturnPage, escapeHtml, rootPage } from './service-pages.html.js';

describe('service pages', () => {
  it('escapes every value it shows: an account named like markup stays text', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'co'`)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;');
    const page = brokerageReturnPage({ connected: true, accountNames: ['<img src=x onerror=alert(1)>', 'Roth IRA'] });
    expect(page).toContain('<li>&lt;img src=x onerror=alert(1)&gt;</li><li>Roth IRA</li>');
    expect(page).not.toContain('<img');
  });

  it('names accounts only when it was given them, and only for a connection that completed', () => {
    expect(brokerageReturnPage({ connected: true, accountNames: null })).not.toContain('Accounts connected');
    expect(brokerageReturnPage({ connected: false, accountNames: ['Roth IRA'] })).not.toContain('Roth IRA');
    expect(rootPage()).not.toMatch(/<script/);
  });
});
