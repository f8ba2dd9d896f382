import { TurnstileVerifier } from '@mailcast/core';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { aForm, formCounts } from '../../test-support/forms';
import { useApi } from '../../test-support/harness';
import { FLOOD_SUBMISSIONS_PER_MINUTE } from './submission-limits';

/** The one allowed test double: Cloudflare cannot be reached from tests. It knows one good answer. */
const turnstileChecks: Array<{ token: string; ip: string | null }> = [];
const fakeTurnstile: TurnstileVerifier = {
  enabled: true,
  verify: async (token, ip) => {
    turnstileChecks.push({ token, ip });
    return token === 'good-answer';
  },
};

const PUBLIC_URL = 'http://forms.mailcast.test';
let nextAddress = 1;
/** Each test posts from its own client address (X-Forwarded-For from a trusted loopback proxy). */
const freshAddress = () => `198.51.100.${nextAddress++}`;

describe('public opt-in form endpoints (docs/opt-in-forms.md)', () => {
  const api = useApi({
    env: { PUBLIC_URL, TRUSTED_PROXIES: 'loopback' },
    overrides: [{ token: TurnstileVerifier, value: fakeTurnstile }],
  });
  let channelId: number;
  const subscriberCount = async () => Number((await api.database.db('subscribers').count({ n: '*' }).first())!.n);

  beforeAll(async () => {
    channelId = (await api.fixtures.aTenant()).channel.id;
  });

  describe('GET /f/:identifier, the hosted page', () => {
    it('renders the form on the server with every stored text escaped, a nonce CSP, checked theme colours and a visitor cookie', async () => {
      const form = await aForm(api.database.db, channelId, {
        theme_settings: { colors: { button: '#ff0066', text: 'red;}body{display:none', background: 'url(https://evil.test/x)' } },
      });
      const res = await request(api.app).get(`/f/${form.identifier}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const csp = res.headers['content-security-policy'] as string;
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain(`style-src 'nonce-${nonce}'`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      // Every script and style element carries the nonce; there are no inline handlers.
      const html = res.text;
      expect(html.match(/<script\b[^>]*>/g)!.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
      expect(html.match(/<style\b[^>]*>/g)!.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      expect(html).toContain('<h2>Join the &lt;b&gt;newsletter&lt;/b&gt;</h2>');
      expect(html).toContain('<title>Join the &lt;b&gt;newsletter&lt;/b&gt;</title>');
      expect(html).toContain('--mc-accent:#ff0066');
      expect(html).not.toContain('body{display:none');
      expect(html).not.toContain('evil.test');
      expect(html).toContain(`action="/f/${form.identifier}/submit"`);
      expect(html).toMatch(/name="rendered_at" value="\d+"/);
      expect(res.headers['set-cookie']![0]).toMatch(/^mailcast_visitor=[0-9a-f]{32}; Max-Age=\d+; Path=\/f; Expires=.*; HttpOnly; SameSite=Lax$/);
    });

    it('answers a 404 page for an unknown, malformed or disabled form', async () => {
      const disabled = await aForm(api.database.db, channelId, { enabled: false });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', disabled.identifier]) {
        const res = await request(api.app).get(`/f/${id}`).expect(404);
        expect(res.text).toContain('Form not found');
      }
    });
  });

  describe('GET /f/:identifier/form.json and embed.js', () => {
    it('answers the render model with CORS for any site, the chosen form row posting to itself', async () => {
      const form = await aForm(api.database.db, channelId, {
        widget_type: 'popup_modal',
        trigger_settings: { trigger: 'time_delay', delay_seconds: 2, frequency: 'once_per_day', devices: ['desktop'] },
        post_submission_blocks: [{ block_type: 'heading', text_value: 'Thanks!' }],
      });
      const res = await request(api.app).get(`/f/${form.identifier}/form.json?visitor=abcdef0123456789`).set('Origin', 'http://blog.example').expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.body).toMatchObject({
        identifier: form.identifier,
        widget: 'popup_modal',
        viewUrl: `${PUBLIC_URL}/f/${form.identifier}/view`,
        submitUrl: `${PUBLIC_URL}/f/${form.identifier}/submit`,
        trigger: { trigger: 'time_delay', delaySeconds: 2, scrollPercentage: 50, frequency: 'once_per_day', devices: ['desktop'] },
        honeypot: true,
        turnstileSiteKey: null,
        turnstileScript: null,
        after: [{ type: 'heading', text: 'Thanks!' }],
      });
      expect(res.body.blocks.map((b: { type: string; name: string }) => [b.type, b.name])).toEqual([
        ['heading', ''],
        ['field', 'email'],
        ['field', 'first_name'],
        ['button', ''],
      ]);
    });

    it('splits visitors between the main form and its variants by weight, each visitor keeping one', async () => {
      const main = await aForm(api.database.db, channelId, { variant_weight: 50 });
      const variant = await aForm(api.database.db, channelId, { parent_form_id: main.id, variant_weight: 50 });
      const seen = new Map<string, number>();
      for (let i = 0; i < 40; i++) {
        const visitor = `visitor-${i.toString().padStart(4, '0')}`;
        const first = (await request(api.app).get(`/f/${main.identifier}/form.json?visitor=${visitor}`).expect(200)).body.identifier;
        const again = (await request(api.app).get(`/f/${main.identifier}/form.json?visitor=${visitor}`).expect(200)).body.identifier;
        expect(again).toBe(first);
        seen.set(first, (seen.get(first) ?? 0) + 1);
      }
      expect([...seen.keys()].sort()).toEqual([main.identifier, variant.identifier].sort());
      // Weight 0 is never shown; the hosted page follows the same choice through its cookie.
      await api.database.db('opt_in_forms').where({ id: main.id }).update({ variant_weight: 0 });
      const page = await request(api.app).get(`/f/${main.identifier}`).set('Cookie', 'mailcast_visitor=visitor-0001').expect(200);
      expect(page.text).toContain(`action="/f/${variant.identifier}/submit"`);
      expect((await request(api.app).get(`/f/${main.identifier}/form.json?visitor=visitor-0002`)).body.identifier).toBe(variant.identifier);
    });

    it('refuses a site outside allowed_embedding_domains (403) and answers 404 for a disabled form', async () => {
      const form = await aForm(api.database.db, channelId, { allowed_embedding_domains: ['example.com'] });
      await request(api.app).get(`/f/${form.identifier}/form.json`).set('Origin', 'https://evil.example.net').expect(403);
      await request(api.app).get(`/f/${form.identifier}/form.json`).set('Origin', 'https://www.example.com').expect(200);
      await request(api.app).get(`/f/${form.identifier}/form.json`).set('Origin', PUBLIC_URL).expect(200);
      const disabled = await aForm(api.database.db, channelId, { enabled: false });
      expect((await request(api.app).get(`/f/${disabled.identifier}/form.json`).expect(404)).body).toEqual({ error: 'Form not found' });
    });

    it('serves one embed script under 15 KB gzipped that names no other host', async () => {
      const form = await aForm(api.database.db, channelId);
      const res = await request(api.app)
        .get(`/f/${form.identifier}/embed.js`)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      const body = res.body as Buffer;
      expect(gzipSync(body, { level: 9 }).length).toBeLessThan(15 * 1024);
      const hosts = [...body.toString('utf8').matchAll(/https?:\/\/([a-z0-9.-]+)/gi)].map((m) => m[1]);
      expect(hosts).toEqual([]);
      await request(api.app)
        .get(`/f/${form.identifier}/embed.js`)
        .set('If-None-Match', res.headers.etag as string)
        .expect(304);
    });

    it('answers CORS preflights', async () => {
      const res = await request(api.app)
        .options('/f/00000000-0000-4000-8000-000000000000/submit')
        .set('Origin', 'http://blog.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type')
        .expect(204);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Content-Type, Accept',
      });
    });
  });

  describe('POST /f/:identifier/view', () => {
    it('counts every view and one unique view per visitor and day', async () => {
      const form = await aForm(api.database.db, channelId);
      const view = (visitor: string) => request(api.app).post(`/f/${form.identifier}/view`).type('form').send({ visitor_id: visitor });
      expect((await view('visitor-aaaa').expect(200)).body).toEqual({ counted: true, unique: true });
      expect((await view('visitor-aaaa').expect(200)).body).toEqual({ counted: true, unique: false });
      await request(api.app).post(`/f/${form.identifier}/view`).send({ visitor_id: 'visitor-bbbb' }).expect(200);
      expect(await formCounts(api.database.db, form.id)).toEqual({ views: 3, unique_views: 2, submissions: 0 });
      expect((await view('x').expect(422)).body).toEqual({ error: 'visitor_id must be 8 to 64 letters, digits, - or _' });
      await request(api.app).post('/f/00000000-0000-4000-8000-000000000000/view').send({ visitor_id: 'visitor-aaaa' }).expect(404);
    });
  });

  describe('POST /f/:identifier/submit protections', () => {
    const submit = (identifier: string, body: Record<string, unknown>, address = freshAddress()) =>
      request(api.app).post(`/f/${identifier}/submit`).set('X-Forwarded-For', address).type('form').send(body);
    const human = (extra: Record<string, unknown> = {}) => ({ email: 'reader@example.com', rendered_at: String(Date.now() - 10_000), website: '', ...extra });

    it("passes a person's submission to the use case: 200 with its answer, the name split, the submission counted", async () => {
      const form = await aForm(api.database.db, channelId);
      const res = await submit(form.identifier, human({ email: 'Ada@Example.com', name: 'Ada King Lovelace' })).expect(200);
      // The same answer a bot gets from the honeypot or the time check.
      expect(res.body).toEqual({ status: 'subscribed', message: 'Thank you for subscribing!' });
      const row = await api.database.db('subscribers').where({ channel_id: channelId, email: 'ada@example.com' }).first();
      expect(row).toMatchObject({ first_name: 'Ada', last_name: 'King Lovelace' });
      expect(await formCounts(api.database.db, form.id)).toMatchObject({ submissions: 1 });
    });

    it("carries a topic box and the form's custom fields to the new subscriber", async () => {
      const now = new Date();
      const [topic] = await api.database
        .db('topics')
        .insert({ channel_id: channelId, name: 'Weekly digest', storage: 'custom_data', custom_data_key: 'weekly', created_at: now, updated_at: now })
        .returning('id');
      const topicId = Number((topic as { id: number }).id);
      const form = await aForm(api.database.db, channelId, {
        blocks: [
          { block_type: 'input_field', input_field_value_type: 'email', input_field_label: 'Email', required: true },
          { block_type: 'custom_field', custom_field_key: 'company', input_field_label: 'Company' },
          { block_type: 'topic', topic_id: topicId, checkbox_label: 'Send me the weekly digest' },
        ],
      });
      const model = (await request(api.app).get(`/f/${form.identifier}/form.json`).expect(200)).body;
      expect(model.blocks.map((b: { name: string }) => b.name)).toEqual(['email', 'custom_data[company]', `topics[${topicId}]`]);
      await submit(form.identifier, { ...human({ email: 'topics@example.com' }), 'custom_data[company]': 'Initech', [`topics[${topicId}]`]: '1' }).expect(200);
      const row = await api.database.db('subscribers').where({ channel_id: channelId, email: 'topics@example.com' }).first();
      expect(row.custom_data).toEqual({ company: 'Initech', weekly: true });
    });

    it('answers 422 for a bad email and writes nothing', async () => {
      const form = await aForm(api.database.db, channelId);
      const before = await subscriberCount();
      const res = await submit(form.identifier, human({ email: 'not an address' })).expect(422);
      expect(res.body).toEqual({ errors: { email: [expect.any(String)] } });
      expect(await subscriberCount()).toBe(before);
      expect(await formCounts(api.database.db, form.id)).toMatchObject({ submissions: 0 });
    });

    it('takes a JSON body as well, and a good Turnstile answer', async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { turnstile: true, turnstile_site_key: 'site' } });
      const res = await request(api.app)
        .post(`/f/${form.identifier}/submit`)
        .set('X-Forwarded-For', freshAddress())
        .send({ ...human({ email: 'json@example.com' }), 'cf-turnstile-response': 'good-answer', custom_data: { plan: 'pro' } })
        .expect(200);
      expect(res.body.status).toBe('subscribed');
      const row = await api.database.db('subscribers').where({ channel_id: channelId, email: 'json@example.com' }).first();
      // plan is not a field of this form (it has none): a visitor cannot write it.
      expect(row.custom_data).toEqual({});
    });

    it('answers a filled honeypot with a fake 200 and writes nothing', async () => {
      const form = await aForm(api.database.db, channelId);
      const before = await subscriberCount();
      const res = await submit(form.identifier, human({ website: 'http://spam.example' })).expect(200);
      expect(res.body).toEqual({ status: 'subscribed', message: 'Thank you for subscribing!' });
      expect(await subscriberCount()).toBe(before);
      expect(await formCounts(api.database.db, form.id)).toEqual({ views: 0, unique_views: 0, submissions: 0 });
    });

    it('answers a submission faster than min_submit_seconds, or without rendered_at, with a fake 200 and writes nothing', async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { min_submit_seconds: 5 } });
      const before = await subscriberCount();
      for (const body of [human({ rendered_at: String(Date.now() - 4_000) }), human({ rendered_at: undefined }), human({ rendered_at: 'soon' })]) {
        expect((await submit(form.identifier, body).expect(200)).body).toEqual({ status: 'subscribed', message: 'Thank you for subscribing!' });
      }
      expect(await subscriberCount()).toBe(before);
      expect(await formCounts(api.database.db, form.id)).toMatchObject({ submissions: 0 });
    });

    it('refuses a site outside allowed_embedding_domains with 403, and answers 404 for unknown and disabled forms', async () => {
      const form = await aForm(api.database.db, channelId, { allowed_embedding_domains: ['https://example.com/', 'shop.example.org'] });
      const res = await submit(form.identifier, human()).set('Origin', 'https://example.net').expect(403);
      expect(res.body).toEqual({ error: 'This form cannot be used from this website' });
      // Allowed hosts (and subdomains) and the product's own origin get past the check (to the honeypot here).
      for (const origin of ['https://example.com', 'https://news.example.com', 'http://shop.example.org', PUBLIC_URL]) {
        await submit(form.identifier, human({ website: 'bot' }))
          .set('Origin', origin)
          .expect(200);
      }
      const disabled = await aForm(api.database.db, channelId, { enabled: false });
      expect((await submit(disabled.identifier, human()).expect(404)).body).toEqual({ error: 'Form not found' });
      await submit('00000000-0000-4000-8000-000000000000', human()).expect(404);
      await submit('nonsense', human()).expect(404);
    });

    it("answers 429 with Retry-After past the form's rate_limit_max in its window, per address", async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { rate_limit_max: 2, rate_limit_window_minutes: 10 } });
      const address = freshAddress();
      // Bots' submissions count as well: the honeypot keeps these from reaching the use case.
      await submit(form.identifier, human({ website: 'x' }), address).expect(200);
      await submit(form.identifier, human({ website: 'x' }), address).expect(200);
      const refused = await submit(form.identifier, human({ website: 'x' }), address).expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(590);
      expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
      await submit(form.identifier, human({ website: 'x' })).expect(200);
    });

    it('refuses a flood from one address from memory: at most one database query per 100 refused requests', async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { rate_limit_max: 1 } });
      const address = freshAddress();
      await submit(form.identifier, human({ website: 'x' }), address).expect(200);
      const queries: string[] = [];
      const onQuery = (q: { sql: string }) => queries.push(q.sql);
      api.database.db.on('query', onQuery);
      try {
        for (let i = 0; i < 200; i++) {
          const res = await submit(form.identifier, human(), address);
          expect(res.status).toBe(429);
          expect(res.headers['retry-after']).toMatch(/^\d+$/);
        }
      } finally {
        api.database.db.removeListener('query', onQuery);
      }
      expect(queries.length).toBeLessThanOrEqual(2);
    });

    it(`refuses more than ${FLOOD_SUBMISSIONS_PER_MINUTE} submissions a minute from one address across forms before any query`, async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { rate_limit: false } });
      const address = freshAddress();
      for (let i = 0; i < FLOOD_SUBMISSIONS_PER_MINUTE; i++) await submit(form.identifier, human({ website: 'x' }), address).expect(200);
      const queries: string[] = [];
      const onQuery = (q: { sql: string }) => queries.push(q.sql);
      api.database.db.on('query', onQuery);
      try {
        await submit(form.identifier, human(), address).expect(429);
        await submit('00000000-0000-4000-8000-000000000000', human(), address).expect(429);
      } finally {
        api.database.db.removeListener('query', onQuery);
      }
      expect(queries).toEqual([]);
    });

    it('answers the hosted page posted without script with a page: the post-submission blocks, or the problem', async () => {
      const form = await aForm(api.database.db, channelId, { post_submission_blocks: [{ block_type: 'text', text_value: 'See you <soon>' }] });
      const ok = await submit(form.identifier, human({ website: 'bot' }))
        .set('Accept', 'text/html,application/xhtml+xml')
        .expect(200);
      expect(ok.headers['content-type']).toMatch(/^text\/html/);
      expect(ok.text).toContain('<p>See you &lt;soon&gt;</p>');
      expect(ok.headers['content-security-policy']).toContain("default-src 'none'");
      // No allowed domains: any origin may post; a form with a list refuses others with a 403 page.
      const anywhere = await submit(form.identifier, human({ website: 'bot' }))
        .set('Accept', 'text/html')
        .set('Origin', 'https://elsewhere.example')
        .expect(200);
      expect(anywhere.text).not.toContain('class="mc-error"');
      await api.database
        .db('opt_in_forms')
        .where({ id: form.id })
        .update({ allowed_embedding_domains: ['example.com'] });
      const page = await submit(form.identifier, human()).set('Accept', 'text/html').set('Origin', 'https://elsewhere.example').expect(403);
      expect(page.text).toContain('<p class="mc-error">This form cannot be used from this website</p>');
      expect(page.text).toContain(`href="/f/${form.identifier}"`);
    });

    it('checks Turnstile when the form asks for it and a secret is set: a missing or wrong answer is 403', async () => {
      const form = await aForm(api.database.db, channelId, { security_settings: { turnstile: true, turnstile_site_key: '1x00000000000000000000AA' } });
      const model = (await request(api.app).get(`/f/${form.identifier}/form.json`).expect(200)).body;
      expect(model.turnstileSiteKey).toBe('1x00000000000000000000AA');
      expect(model.turnstileScript).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit');
      turnstileChecks.length = 0;
      const address = freshAddress();
      expect((await submit(form.identifier, human(), address).expect(403)).body).toEqual({ error: 'The challenge was not passed: please try again' });
      await submit(form.identifier, human({ 'cf-turnstile-response': 'wrong' }), address).expect(403);
      expect(turnstileChecks).toEqual([
        { token: '', ip: address },
        { token: 'wrong', ip: address },
      ]);
      // A form without the setting is never checked.
      const plain = await aForm(api.database.db, channelId);
      turnstileChecks.length = 0;
      await submit(plain.identifier, human({ website: 'bot' })).expect(200);
      expect(turnstileChecks).toEqual([]);
      // The hosted page of a Turnstile form lets Cloudflare's script in, and only then.
      const page = await request(api.app).get(`/f/${form.identifier}`).expect(200);
      expect(page.headers['content-security-policy']).toContain('https://challenges.cloudflare.com');
      expect(page.text).toContain('data-sitekey="1x00000000000000000000AA"');
    });
  });
});
