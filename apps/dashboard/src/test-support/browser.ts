/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import chromium from '@sparticuz/chromium';
import type { AxeResults, RunOptions } from 'axe-core';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { DASHBOARD_DIR } from '../../../api/src/http/dashboard.routes';

/**
 * Where the tests' screenshots go: the committed ones in docs/screenshots/ only when asked
 * (`UPDATE_SCREENSHOTS=1 npm test`), so a test run leaves the working tree as it found it;
 * otherwise a folder under the temp directory (the pages are still rendered and captured).
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../../../docs/screenshots') : path.join(os.tmpdir(), 'mailcast-screenshots');

/** How to start the browser. */
export interface LaunchOptions {
  /**
   * Start Chromium as on a server or in CI: the environment's LANG=C (no LC_ALL, LC_MESSAGES or
   * LANGUAGE) and no --lang flag, so the browser reports the locale `en-US@posix`, which Intl
   * refuses; the app must render anyway (docs/dashboard.md, "Locale").
   */
  posixLocale?: boolean;
}

/**
 * The Chromium inside the @sparticuz/chromium npm package (unpacked to the temp directory on
 * first use: nothing is downloaded), headless. Not its serverless flags: those turn web security
 * off, and these tests check the page's Content-Security-Policy holds. By default it runs in
 * en-US (`--lang=en-US`, LANG=en_US.UTF-8), so the tests' texts are predictable.
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  if (!existsSync(path.join(DASHBOARD_DIR, 'app.js'))) throw new Error(`the dashboard is not built (${DASHBOARD_DIR}): run npm run build`);
  const env: Record<string, string | undefined> = { ...process.env, LANG: options.posixLocale ? 'C' : 'en_US.UTF-8' };
  if (options.posixLocale) for (const name of ['LC_ALL', 'LC_MESSAGES', 'LC_CTYPE', 'LANGUAGE']) delete env[name];
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: 'shell',
    args: [
      '--no-sandbox',
      '--no-zygote',
      '--disable-setuid-sandbox',
      '--disable-dev-shm-usage',
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--font-render-hinting=none',
      '--no-first-run',
      '--no-default-browser-check',
      ...(options.posixLocale ? [] : ['--lang=en-US']),
    ],
    defaultViewport: { width: 1280, height: 900 },
    env,
  });
}

/**
 * A page that records every console error, uncaught exception and CSP violation (the test
 * asserts the list stays empty), and accepts confirmation dialogs as a user clicking OK.
 */
export async function openPage(browser: Pick<Browser, 'newPage'> | Pick<BrowserContext, 'newPage'>): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'assert') problems.push(`console: ${message.text()} ${message.location().url ?? ''}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
  page.on('dialog', (dialog) => void dialog.accept());
  page.setDefaultTimeout(20_000);
  return { page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Waits until an element matching `selector` contains `text`. On a time-out the error says what
 * the page showed instead (the matching elements' text and any alert), so a failure in CI can be
 * read without rerunning it.
 */
export async function waitForText(page: Page, selector: string, text: string, timeout = 20_000): Promise<void> {
  try {
    await page.waitForFunction(
      (sel: string, want: string) => [...document.querySelectorAll(sel)].some((el) => (el.textContent ?? '').includes(want)),
      { timeout },
      selector,
      text,
    );
  } catch (e) {
    const shown = await page
      .evaluate(
        (sel: string) => ({
          matching: [...document.querySelectorAll(sel)].map((el) => (el.textContent ?? '').trim().slice(0, 300)),
          alerts: [...document.querySelectorAll('[role=alert]')].map((el) => (el.textContent ?? '').trim().slice(0, 300)),
        }),
        selector,
      )
      .catch(() => undefined);
    throw new Error(`no ${selector} showed “${text}” within ${timeout} ms; the page showed ${JSON.stringify(shown)} (${(e as Error).message})`);
  }
}

/** Clicks the button or link whose text is `label` (exactly, trimmed). */
export async function clickText(page: Page, label: string, selector = 'button, a'): Promise<void> {
  const handle = await page.waitForFunction(
    (sel: string, want: string) =>
      [...document.querySelectorAll<HTMLElement>(sel)].find((el) => (el.textContent ?? '').trim() === want && !(el as HTMLButtonElement).disabled),
    {},
    selector,
    label,
  );
  await (handle as unknown as { click(): Promise<void> }).click();
}

/** One accessibility rule broken on the page, as axe-core reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (the npm package's own build, read from node_modules) on the page as it is and
 * answers the violations of `impacts` (default: serious and critical), with where they are. The
 * script goes in through the DevTools protocol, which the page's Content-Security-Policy does
 * not govern, so the policy stays on for the check.
 */
export async function accessibilityViolations(page: Page, impacts: readonly string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact !== null && impacts.includes(v.impact));
}
