import { ConfigToken, type Config } from '@mailcast/adapters';
import {
  Clock,
  ForbiddenError,
  NotFoundError,
  OptInFormRepository,
  RateLimitedError,
  RecordOptInFormView,
  SubmitOptInForm,
  TurnstileVerifier,
  ValidationError,
  type OptInForm,
} from '@mailcast/core';
import { chooseVariant } from '@mailcast/domain';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { toHttpResponse } from '../../http/error-handler';
import { sendPage } from '../page';
import { hostedPage, hostedPageCsp, resultPage } from './hosted-page';
import { originAllowed, renderModel } from './public-form';
import { FormSubmissionLimits } from './submission-limits';
import { readSubmission, SUBMITTED_MESSAGE } from './submission';

/** Where `npm run build` writes the embed script (apps/api/build-embed.mjs). */
export const EMBED_DIR = path.join(path.dirname(require.resolve('@mailcast/api/package.json')), 'dist/forms-embed');

/** The visitor id the hosted page keeps in a cookie (the embed script keeps its own in localStorage). */
export const VISITOR_COOKIE = 'mailcast_visitor';
const VISITOR = /^[A-Za-z0-9_-]{8,64}$/;
const BODY_LIMIT = '64kb';

const newVisitor = () => randomBytes(16).toString('hex');

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * The public side of opt-in forms (docs/opt-in-forms.md): the hosted page, the embed script and
 * its render model, views and submissions. No token; a visitor's browser on any site calls
 * these, so they answer CORS (no credentials) and refuse floods from memory.
 */
export function formsRoutes(container: DependencyContainer, limits = new FormSubmissionLimits()): Router {
  const router = Router();
  const config = container.resolve<Config>(ConfigToken);
  const ownOrigin = new URL(config.publicUrl).origin;
  const forms = () => container.resolve<OptInFormRepository>(OptInFormRepository);
  const now = () => container.resolve<Clock>(Clock).now().getTime();
  const turnstile = () => container.resolve<TurnstileVerifier>(TurnstileVerifier);
  const parsers: RequestHandler[] = [express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 200 }), express.json({ limit: BODY_LIMIT })];

  /** Any site may embed a form (unless its list says otherwise, checked per request): no credentials, so `*`. */
  const cors: RequestHandler = (_req, res, next) => {
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    next();
  };
  // The preflight of each cross-origin call the embed script makes.
  for (const action of ['form.json', 'view', 'submit']) {
    router.options(`/:identifier/${action}`, cors, (_req, res) => {
      res.set({
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type, Accept',
        'Access-Control-Max-Age': '86400',
      });
      res.status(204).end();
    });
  }

  /** The enabled form for this identifier and this caller's Origin, or the 404 / 403. */
  async function usableForm(req: Request): Promise<OptInForm> {
    const form = await forms().findByIdentifier(String(req.params.identifier));
    if (!form || !form.enabled) throw new NotFoundError('Form not found');
    if (!originAllowed(form, req.get('origin'), ownOrigin)) throw new ForbiddenError('This form cannot be used from this website');
    return form;
  }

  /** The form a visitor sees under a main form's identifier: the main form or one of its variants (docs/opt-in-forms.md, "Variant assignment"). */
  async function variantFor(form: OptInForm, visitor: string): Promise<OptInForm> {
    if (form.parentFormId !== null) return form;
    const variants = (await forms().variantsOf(form.id)).filter((v) => v.enabled);
    if (variants.length === 0) return form;
    const candidates = [form, ...variants].map((f) => ({ id: f.id, weight: f.variantWeight, form: f }));
    return chooseVariant(form.id, visitor, candidates).form;
  }

  let script: { body: Buffer; etag: string } | undefined;
  router.get('/:identifier/embed.js', cors, (req, res) => {
    // One script for every form (it reads the form from its own address), cached briefly.
    script ??= (() => {
      const body = readFileSync(path.join(EMBED_DIR, 'embed.js'));
      return { body, etag: `"${body.length.toString(16)}-${Buffer.from(body.subarray(-16)).toString('hex')}"` };
    })();
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      ETag: script.etag,
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.get('if-none-match') === script.etag) {
      res.status(304).end();
      return;
    }
    res.send(script.body);
  });

  router.get('/:identifier/form.json', cors, async (req, res) => {
    const visitor = typeof req.query.visitor === 'string' && VISITOR.test(req.query.visitor) ? req.query.visitor : newVisitor();
    const form = await variantFor(await usableForm(req), visitor);
    res.set('Cache-Control', 'no-store').json(renderModel(form, config.publicUrl, turnstile().enabled, now()));
  });

  router.get('/:identifier', async (req, res) => {
    const main = await forms().findByIdentifier(String(req.params.identifier));
    if (!main || !main.enabled) {
      sendPage(res, 404, 'Form not found', '<p>This form does not exist or is no longer available.</p>');
      return;
    }
    const known = cookie(req, VISITOR_COOKIE);
    const visitor = known && VISITOR.test(known) ? known : newVisitor();
    const form = await variantFor(main, visitor);
    // Relative addresses: the page posts to the origin that served it.
    const model = renderModel(form, '', turnstile().enabled, now());
    const nonce = randomBytes(16).toString('base64');
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': hostedPageCsp(nonce, model.turnstileSiteKey !== null),
        'Referrer-Policy': 'no-referrer',
        'X-Frame-Options': 'DENY',
      })
      .cookie(VISITOR_COOKIE, visitor, { path: '/f', sameSite: 'lax', httpOnly: true, secure: ownOrigin.startsWith('https:'), maxAge: 365 * 24 * 3600 * 1000 })
      .send(hostedPage(model, nonce, visitor, `/f/${form.identifier}/embed.js`));
  });

  router.post('/:identifier/view', cors, (req, _res, next) => {
    const retryAfter = limits.refuseView(req.ip ?? 'unknown');
    next(retryAfter === null ? undefined : new RateLimitedError(retryAfter));
  });
  router.post('/:identifier/view', ...parsers, async (req: Request, res: Response) => {
    const visitor = (req.body as Record<string, unknown> | undefined)?.visitor_id;
    if (typeof visitor !== 'string' || !VISITOR.test(visitor)) throw new ValidationError('visitor_id must be 8 to 64 letters, digits, - or _');
    const form = await usableForm(req);
    const { unique } = await container.resolve(RecordOptInFormView).execute({ formId: form.id, visitorId: visitor });
    res.json({ counted: true, unique });
  });

  // The flood guard runs first, before the body is read and before any query.
  router.post('/:identifier/submit', cors, (req, _res, next) => {
    const retryAfter = limits.refuseSubmissionEarly(req.ip ?? 'unknown', String(req.params.identifier));
    next(retryAfter === null ? undefined : new RateLimitedError(retryAfter));
  });
  router.post('/:identifier/submit', ...parsers, async (req: Request, res: Response) => {
    // A form posted by the hosted page without script asks for a page back; everything else gets JSON.
    const wantsPage = req.accepts(['json', 'html']) === 'html' && req.is('urlencoded') !== false;
    if (!wantsPage) {
      res.json(await submit(req));
      return;
    }
    let form: OptInForm | undefined;
    const nonce = randomBytes(16).toString('base64');
    res.set({ 'Content-Security-Policy': hostedPageCsp(nonce, false), 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' });
    try {
      form = (await forms().findByIdentifier(String(req.params.identifier))) ?? undefined;
      const answer = await submit(req);
      const model = renderModel(form!, '', false, now());
      res.type('html').send(resultPage(model, nonce, { ok: true, message: answer.status === 'confirmation_required' ? answer.message : null }));
    } catch (error) {
      const known = toHttpResponse(error);
      if (!known || !form) throw error;
      const field = 'errors' in known.body ? Object.entries(known.body.errors)[0] : undefined;
      const message = 'error' in known.body ? known.body.error : field ? `${field[0]} ${field[1].join(', ')}` : 'Please check the form and try again.';
      res
        .status(known.status)
        .set(known.headers ?? {})
        .type('html')
        .send(resultPage(renderModel(form, '', false, now()), nonce, { ok: false, message }));
    }
  });

  /** The protections in their order (docs/opt-in-forms.md, "Protections"), then the use case. */
  async function submit(req: Request): Promise<{ status: 'subscribed' | 'confirmation_required'; message: string }> {
    const form = await usableForm(req);
    const security = form.securitySettings;
    const address = req.ip ?? 'unknown';
    if (security.rateLimit) {
      const retryAfter = limits.countForForm(address, String(req.params.identifier), security.rateLimitMax, security.rateLimitWindowMinutes);
      if (retryAfter !== null) throw new RateLimitedError(retryAfter);
    }
    const input = readSubmission(req.body);
    // A bot is told it succeeded and nothing is written: it learns nothing to adapt to.
    if (security.honeypot && input.honeypot !== '') return { status: 'subscribed', message: SUBMITTED_MESSAGE };
    if (security.timeValidation && (input.renderedAt === null || now() - input.renderedAt < security.minSubmitSeconds * 1000)) {
      return { status: 'subscribed', message: SUBMITTED_MESSAGE };
    }
    const verifier = turnstile();
    if (security.turnstile && verifier.enabled && !(await verifier.verify(input.turnstileToken, req.ip ?? null))) {
      throw new ForbiddenError('The challenge was not passed: please try again');
    }
    // The use case counts the submission in the sign-up's own transaction.
    return container.resolve(SubmitOptInForm).execute({
      form,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      customData: input.customData,
      topics: input.topics,
      ipAddress: req.ip ?? null,
    });
  }

  return router;
}
