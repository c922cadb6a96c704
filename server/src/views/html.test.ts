// The one escape helper: every value is escaped wherever it lands (text, attribute, nested list), markup made
// by the tag itself is kept, and money is formatted from integer cents without floating point.
import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.ts';

const HOSTILE = [`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `' onfocus='alert(1)`, '&lt;already&gt;', '</textarea><b>'];

describe('html', () => {
  it.each(HOSTILE)('escapes %j in text, in attributes and in lists', (value) => {
    const out = html`<p title="${value}">${value}</p><ul>${[value, [value]].map((v) => html`<li>${v}</li>`)}</ul>`.text;
    // Outside the template's own markup no character that starts markup or ends an attribute survives.
    const inner = out.replace(/^<p title="/, '').replace(/<\/?(p|ul|li)>|">/g, '');
    expect(inner).not.toMatch(/[<>"']/);
    expect(out).toContain(escapeHtml(value));
  });

  it('keeps markup made by the tag, and renders nothing for null, undefined and false', () => {
    expect(html`<b>${html`<i>${'x<'}</i>`}</b>${null}${undefined}${false}${0}`.text).toBe('<b><i>x&lt;</i></b>0');
  });

  it('escapes the ampersand first, so an entity in a value is shown as typed', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });
});
