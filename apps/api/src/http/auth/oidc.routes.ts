import { ConfigToken, LoggerToken, SecretBoxToken, type Config, type Logger, type SecretBox } from '@mailcast/adapters';
import { Clock, NotFoundError, OidcClient, SignInWithOidc, type OidcChecks } from '@mailcast/core';
import { Router, type Request } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { setSessionCookie } from './session-cookie';

/** The flow's state, nonce and PKCE verifier, sealed by the SecretBox, for 10 minutes. */
export const OIDC_FLOW_COOKIE = 'mailcast_oidc';
const FLOW_PATH = '/auth/oidc';
const FLOW_TTL_MS = 10 * 60 * 1000;
export const OIDC_FAILED_REDIRECT = '/app/sign-in?error=oidc';
export const OIDC_SIGNED_IN_REDIRECT = '/app';

interface SealedFlow extends OidcChecks {
  expiresAt: number;
}

function flowCookieOptions(publicUrl: string) {
  // Lax, not Strict: the provider sends the browser back with a cross-site top-level GET, which
  // a Strict cookie would not accompany. It opens nothing by itself (docs/teams.md, "OpenID Connect").
  return { httpOnly: true, sameSite: 'lax', path: FLOW_PATH, secure: publicUrl.startsWith('https:') } as const;
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The flow the browser brought back, or null when it is missing, forged, sealed under an unknown key or expired. */
function openFlow(box: SecretBox, sealed: string | undefined, now: number): OidcChecks | null {
  if (sealed === undefined || sealed.length > 4096) return null;
  try {
    const flow = JSON.parse(box.open('oidc.flow', sealed).toString('utf8')) as SealedFlow;
    if (typeof flow.expiresAt !== 'number' || flow.expiresAt < now) return null;
    return { state: String(flow.state), nonce: String(flow.nonce), codeVerifier: String(flow.codeVerifier) };
  } catch {
    return null;
  }
}

/**
 * OpenID Connect sign-in under /auth (docs/teams.md, "OpenID Connect"), and which
 * sign-in methods this installation offers. Without OIDC_* configured, start and callback are 404.
 */
export function oidcRoutes(container: DependencyContainer): Router {
  const config = container.resolve<Config>(ConfigToken);
  const router = Router();
  const enabled = () => container.isRegistered(OidcClient, true);
  const now = () => container.resolve<Clock>(Clock).now().getTime();

  router.get('/providers', (_req, res) => {
    res.json({ password: true, oidc: enabled() });
  });

  router.get('/oidc/start', async (_req, res) => {
    if (!enabled()) throw new NotFoundError('Not found');
    const { url, checks } = await container.resolve<OidcClient>(OidcClient).start();
    const flow: SealedFlow = { ...checks, expiresAt: now() + FLOW_TTL_MS };
    const sealed = container.resolve<SecretBox>(SecretBoxToken).seal('oidc.flow', JSON.stringify(flow));
    res.cookie(OIDC_FLOW_COOKIE, sealed, { ...flowCookieOptions(config.publicUrl), maxAge: FLOW_TTL_MS });
    res.redirect(302, url);
  });

  router.get('/oidc/callback', async (req, res) => {
    if (!enabled()) throw new NotFoundError('Not found');
    // One use: whatever happens next, the flow is over.
    res.clearCookie(OIDC_FLOW_COOKIE, flowCookieOptions(config.publicUrl));
    const checks = openFlow(container.resolve<SecretBox>(SecretBoxToken), readCookie(req, OIDC_FLOW_COOKIE), now());
    const logger = container.resolve<Logger>(LoggerToken);
    if (checks === null) {
      logger.info('oidc sign-in refused', { reason: 'no valid flow cookie' });
      return res.redirect(302, OIDC_FAILED_REDIRECT);
    }
    // The callback URL as registered with the provider, with the query the provider sent.
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const outcome = await container.resolve(SignInWithOidc).execute({
      callbackUrl: `${config.publicUrl}${FLOW_PATH}/callback${query}`,
      checks,
      ip: req.ip ?? null,
      userAgent: req.get('user-agent') ?? null,
    });
    if ('refused' in outcome) {
      logger.info('oidc sign-in refused', { reason: outcome.refused });
      return res.redirect(302, OIDC_FAILED_REDIRECT);
    }
    setSessionCookie(res, outcome.signedIn.cookieValue, config.publicUrl);
    res.redirect(302, OIDC_SIGNED_IN_REDIRECT);
  });

  return router;
}
